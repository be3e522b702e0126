import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointConfigSchema, EndpointError, listServedModels } from "../src";

describe("endpoint health check over HTTP", () => {
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/v1/models" && req.headers.authorization === "Bearer secret") {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ object: "list", data: [{ id: "Qwen2.5-7B-Instruct", object: "model" }] }));
      } else if (req.url === "/v1/models") {
        res.statusCode = 401;
        res.end("{}");
      } else if (req.url === "/broken/v1/models") {
        res.end("<html>not json</html>");
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("lists the served models", async () => {
    expect(await listServedModels({ baseUrl: `${baseUrl}/v1/`, apiKey: "secret" })).toEqual(["Qwen2.5-7B-Instruct"]);
  });

  it("reports HTTP errors, non-JSON answers and unreachable servers as EndpointError", async () => {
    await expect(listServedModels({ baseUrl: `${baseUrl}/v1` })).rejects.toMatchObject({ name: "EndpointError", status: 401 });
    await expect(listServedModels({ baseUrl: `${baseUrl}/broken/v1` })).rejects.toThrow(/not an OpenAI-compatible model list/);
    await expect(listServedModels({ baseUrl: "http://127.0.0.1:9/v1" }, { timeoutMs: 2000 })).rejects.toBeInstanceOf(EndpointError);
  });

  it("validates endpoint configuration", () => {
    expect(endpointConfigSchema.parse({ name: "judge", baseUrls: ["http://h:8000/v1"], model: "m", role: "judge" }).maxConcurrency).toBe(64);
    expect(endpointConfigSchema.safeParse({ name: "x", baseUrls: ["ftp://h/v1"], model: "m", role: "judge" }).success).toBe(false);
    expect(endpointConfigSchema.safeParse({ name: "x", baseUrls: ["http://h/v1"], model: "m", role: "critic" }).success).toBe(false);
    expect(endpointConfigSchema.safeParse({ name: "x", baseUrls: [], model: "m", role: "judge" }).success).toBe(false);
  });
});
