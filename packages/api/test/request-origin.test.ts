import { describe, expect, it } from "vitest";
import { accountDelaySeconds, addressBucketOf } from "../src/auth/throttle";
import { currentClientAddress, normalizeAddress, parseTrustedProxies, requestOrigins, resolveClientAddress, UNKNOWN_CLIENT_ADDRESS } from "../src/request-origin/request-origin";

describe("client addresses", () => {
  const proxies = parseTrustedProxies("10.0.0.0/8, 192.168.1.1, 2001:db8::/32");

  it("without trusted proxies, or from a peer that is not one, the socket address is the client whatever the header says", () => {
    expect(resolveClientAddress("203.0.113.5", "198.51.100.1", null)).toBe("203.0.113.5");
    expect(resolveClientAddress("::ffff:203.0.113.5", "198.51.100.1", proxies)).toBe("203.0.113.5");
    expect(resolveClientAddress(undefined, "198.51.100.1", proxies)).toBe(UNKNOWN_CLIENT_ADDRESS);
  });

  it("from a trusted proxy, the right-most entry that is not a trusted proxy; prepended entries change nothing", () => {
    expect(resolveClientAddress("10.1.1.1", "198.51.100.7", proxies)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.1.1.1", "1.2.3.4, 198.51.100.7, 10.9.9.9", proxies)).toBe("198.51.100.7");
    expect(resolveClientAddress("10.1.1.1", ["1.2.3.4", "198.51.100.7, 192.168.1.1"], proxies)).toBe("198.51.100.7");
    expect(resolveClientAddress("2001:db8::1", "2001:DB8::2, [2001:db9::5]:443", proxies)).toBe("2001:db9::5");
    // All hops trusted: the left-most; no header: the proxy itself; garbage ends the walk at the last good hop.
    expect(resolveClientAddress("10.1.1.1", "10.2.2.2, 10.3.3.3", proxies)).toBe("10.2.2.2");
    expect(resolveClientAddress("10.1.1.1", undefined, proxies)).toBe("10.1.1.1");
    expect(resolveClientAddress("10.1.1.1", "198.51.100.7, not-an-address, 10.3.3.3", proxies)).toBe("10.3.3.3");
  });

  it("a bad STEPWISER_TRUSTED_PROXIES entry is refused by name; empty trusts nobody", () => {
    expect(parseTrustedProxies("")).toBeNull();
    expect(parseTrustedProxies(undefined)).toBeNull();
    expect(() => parseTrustedProxies("10.0.0.0/8, 10.0.0.0/33")).toThrow('STEPWISER_TRUSTED_PROXIES: "10.0.0.0/33" is not an IP address or CIDR block');
    expect(() => parseTrustedProxies("proxy.internal")).toThrow(/"proxy.internal" is not an IP address/);
    expect(() => parseTrustedProxies("10.0.0.0/8/1")).toThrow(/is not an IP address or CIDR block/);
  });

  it("normalizes ports, brackets and IPv4-mapped IPv6; refuses what is not an address", () => {
    expect(normalizeAddress("10.0.0.1:8080")).toBe("10.0.0.1");
    expect(normalizeAddress("[::1]:443")).toBe("::1");
    expect(normalizeAddress("::FFFF:10.0.0.1")).toBe("10.0.0.1");
    expect(normalizeAddress("unknown")).toBeNull();
  });

  it("the request's origin is read from the server's store, unknown outside one", async () => {
    expect(currentClientAddress()).toBe(UNKNOWN_CLIENT_ADDRESS);
    const seen = await requestOrigins().run({ clientAddress: "198.51.100.9" }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentClientAddress();
    });
    expect(seen).toBe("198.51.100.9");
  });
});

describe("throttle keys and backoff", () => {
  it("IPv6 clients count by their /64; IPv4 by the address", () => {
    expect(addressBucketOf("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(addressBucketOf("2001:db8:1:2::9")).toBe(addressBucketOf("2001:db8:1:2:ffff::1"));
    expect(addressBucketOf("::1")).toBe("0:0:0:0::/64");
    expect(addressBucketOf("203.0.113.5")).toBe("203.0.113.5");
  });

  it("five failures are free, then 2 s doubling, never more than a minute", () => {
    expect([0, 4, 5, 6, 7, 9, 10, 50].map(accountDelaySeconds)).toEqual([0, 0, 2, 4, 8, 32, 60, 60]);
  });
});
