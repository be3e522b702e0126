import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { composeServices, documentedCommands, flagProblems, imageOf, parseServerOptions, sequenceOf, type ServerOptions } from "./compose-checks";

/**
 * Every flag deploy/compose.yaml and docs/DEPLOYMENT.md pass to `vllm serve` and to SGLang's launch_server exists
 * in the release the Compose file pins, and takes a value exactly when it is given one. The releases' options are
 * fixtures read from their argument definitions (fixtures/server-args/extract_server_args.py, Python's ast module
 * over the tagged sources), so a flag a release renamed or dropped fails here, not on a GPU machine at start-up.
 */
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const fixtures = path.join(repoRoot, "packages/config/test/fixtures/server-args");
const compose = readFileSync(path.join(repoRoot, "deploy/compose.yaml"), "utf8");
const doc = readFileSync(path.join(repoRoot, "docs/DEPLOYMENT.md"), "utf8");

/** The fixture of `<server>-<version>-…-args.txt` for the release an image tag names. */
function optionsFor(server: "vllm" | "sglang", image: string): ServerOptions {
  const version = /:v?([\w.]+)$/.exec(image)?.[1] ?? "";
  const file = readdirSync(fixtures).find((name) => name.startsWith(`${server}-${version}-`) && name.endsWith("-args.txt"));
  expect(file, `a fixture of ${server} ${version}'s options in ${path.relative(repoRoot, fixtures)} (extract_server_args.py writes it)`).toBeDefined();
  const options = parseServerOptions(readFileSync(path.join(fixtures, file!), "utf8"));
  expect(options.tag).toBe(`v${version}`);
  expect(options.commit).toMatch(/^[0-9a-f]{40}$/);
  return options;
}

/** The words after the program (`vllm serve`, `sglang.launch_server`) of each command line for a server. */
function composeCommands(imagePrefix: string, program: string): { image: string; words: string[] }[] {
  const found: { image: string; words: string[] }[] = [];
  for (const block of composeServices(compose).values()) {
    const image = imageOf(block);
    if (!image?.startsWith(imagePrefix)) continue;
    found.push({ image, words: after(sequenceOf(block, "command").flatMap((item) => item.split(/\s+/)), program) });
  }
  return found;
}

function after(words: string[], program: string): string[] {
  const at = words.findIndex((word) => word.endsWith(program));
  expect(at, `${program} in ${words.join(" ")}`).toBeGreaterThanOrEqual(0);
  // `vllm serve MODEL`: the model is a positional argument, skipped with the words before the first flag.
  return words.slice(at + 1);
}

describe("vLLM and SGLang flags in compose.yaml and DEPLOYMENT.md exist in the pinned releases", () => {
  const vllm = composeCommands("vllm/vllm-openai:", "serve");
  const sglang = composeCommands("lmsysorg/sglang:", "sglang.launch_server");
  const docVllm = documentedCommands(doc, "vllm serve").map((words) => after(words, "serve"));
  const docSglang = documentedCommands(doc, "sglang.launch_server").map((words) => after(words, "sglang.launch_server"));

  it("finds the launch lines (compose: one vLLM and one SGLang service; the doc: one of each)", () => {
    expect(vllm).toHaveLength(1);
    expect(sglang).toHaveLength(1);
    expect(docVllm).toHaveLength(1);
    expect(docSglang).toHaveLength(1);
    for (const words of [vllm[0]!.words, sglang[0]!.words, ...docVllm, ...docSglang]) expect(words).toContain("--served-model-name");
  });

  it("vLLM: every flag of compose's and the doc's `vllm serve` is an option of the pinned release, with a value exactly where it takes one", () => {
    const options = optionsFor("vllm", vllm[0]!.image);
    expect(compose, "compose.yaml names the release in a comment").toContain(`vLLM ${options.tag} (vllm-project/vllm tag ${options.tag}, commit ${options.commit.slice(0, 12)})`);
    for (const words of [vllm[0]!.words, ...docVllm]) {
      expect(flagProblems(words, options), words.join(" ")).toEqual([]);
      // Cached-token accounting reads usage.prompt_tokens_details, which vLLM fills only with this flag.
      expect(words).toContain("--enable-prompt-tokens-details");
      expect(words).toContain("--enable-prefix-caching");
      expect(words, "the key comes from VLLM_API_KEY, never the command line").not.toContain("--api-key");
    }
  });

  it("SGLang: every flag of compose's and the doc's launch_server is an option of the pinned release, and the --config YAML's key is one too", () => {
    const options = optionsFor("sglang", sglang[0]!.image);
    expect(compose, "compose.yaml names the release in a comment").toContain(`SGLang ${options.tag} (sgl-project/sglang tag ${options.tag}, commit ${options.commit.slice(0, 12)})`);
    for (const words of [sglang[0]!.words, ...docSglang]) {
      expect(flagProblems(words, options), words.join(" ")).toEqual([]);
      // SGLang reports cached prompt tokens (prompt_tokens_details.cached_tokens) only with this flag.
      expect(words).toContain("--enable-cache-report");
      expect(words).not.toContain("--disable-radix-cache");
      expect(words).not.toContain("--api-key");
    }
    // The --config file holds `api-key: <key>`; SGLang turns each key into `--key value`.
    expect(options.kinds.get("--api-key")).toBe("value");
    expect(options.kinds.get("--config")).toBe("value");
  });

  it("the flag check reports an unknown flag, a value given to a switch and a missing value", () => {
    const options: ServerOptions = {
      tag: "v9.9.9",
      commit: "0".repeat(40),
      kinds: new Map([
        ["--max-num-seqs", "value"],
        ["--enable-prefix-caching", "switch"],
        ["--enable-prompt-tokens-details", "switch"],
        ["--hf-token", "optional"],
      ]),
    };
    expect(flagProblems(["--max-num-seqs", "256", "--enable-prefix-caching", "--hf-token", "--max-num-seqs=8"], options)).toEqual([]);
    expect(flagProblems(["--enable-prefix-cache", "--enable-prompt-tokens-details", "true", "--max-num-seqs"], options)).toEqual([
      "--enable-prefix-cache: not an option of v9.9.9",
      "--enable-prompt-tokens-details true: --enable-prompt-tokens-details takes no value in v9.9.9",
      "--max-num-seqs: takes a value in v9.9.9, none given",
    ]);
  });

  it("the doc's launch lines are read as the shell reads them: continuations joined, comments dropped", () => {
    const markdown = "text\n\n```\nvllm serve m \\\n  --port 8000 \\\n  --enable-x   # a comment --not-a-flag\n# a comment line --nor-this\n```\n";
    expect(documentedCommands(markdown, "vllm serve")).toEqual([["vllm", "serve", "m", "--port", "8000", "--enable-x"]]);
  });
});
