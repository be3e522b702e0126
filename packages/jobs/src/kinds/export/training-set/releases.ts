import type { TrainingSetFormat } from "./options";

/**
 * The trainer release each format's launch line is written for and checked against
 * (packages/jobs/test/fixtures/trainer-configs holds the argument definitions read
 * from that release's source), and the exact pins of the export's requirements.txt.
 * Every pin names where the release itself states the version.
 */

export interface PinnedRequirement {
  /** The distribution name as pip takes it, extras included (e.g. "ray[default]"). */
  name: string;
  version: string;
  /** Where the release states this version. */
  source: string;
}

export interface TrainerRelease {
  trainer: "verl" | "OpenRLHF" | "TRL";
  /** GitHub owner/name. */
  repository: string;
  release: string;
  tag: string;
  /** The commit of `tag`, whose files the launch line was checked against. */
  sourceCommit: string;
  /** The files of that commit the launch line follows. */
  checked: string[];
  /** requirements.txt, in this order. */
  requirements: PinnedRequirement[];
  /** Why this release, and what requirements.txt leaves to the resolver. */
  notes: string[];
}

const VERL: TrainerRelease = {
  trainer: "verl",
  repository: "verl-project/verl",
  release: "0.9.0",
  tag: "v0.9.0",
  sourceCommit: "483b8a009ba3a97563edee3a19887e4862b8094a",
  checked: [
    "verl/trainer/config/_generated_ppo_trainer.yaml",
    "verl/utils/config.py",
    "verl/workers/config/actor.py",
    "verl/workers/config/rollout.py",
    "verl/workers/engine_workers.py",
    "verl/workers/rollout/base.py",
    "verl/trainer/ppo/core_algos.py",
    "verl/trainer/ppo/ray_trainer.py",
  ],
  requirements: [
    { name: "verl", version: "0.9.0", source: "the release (tag v0.9.0, verl/version/version)" },
    { name: "vllm", version: "0.24.0", source: "docker/Dockerfile.stable.vllm (VLLM_VERSION; setup.py's vllm extra asks for vllm>=0.18.0)" },
    { name: "torch", version: "2.11.0", source: "docker/Dockerfile.stable.vllm (TORCH_VERSION)" },
    { name: "transformers", version: "5.5.3", source: "setup.py (transformers>=5.5.3,!=5.6.0,<5.11) and the vLLM e2e workflows (pip install transformers==5.5.3)" },
  ],
  notes: ["The newest release tag of verl-project/verl (formerly volcengine/verl)."],
};

const OPENRLHF: TrainerRelease = {
  trainer: "OpenRLHF",
  repository: "OpenRLHF/OpenRLHF",
  release: "0.11.0",
  tag: "v0.11.0",
  sourceCommit: "3c3be6234e0cb353e76bb8019947db9dfe99fca7",
  checked: ["openrlhf/cli/train_ppo_ray.py", "openrlhf/trainer/ppo_utils/samples_generator.py", "openrlhf/trainer/ray/vllm_engine.py", "openrlhf/utils/agent.py"],
  requirements: [
    { name: "openrlhf", version: "0.11.0", source: "the release (tag v0.11.0, version.txt)" },
    { name: "vllm", version: "0.27.1", source: "setup.py (extra vllm) and dockerfile/Dockerfile" },
    { name: "transformers", version: "5.15.0", source: "requirements.txt" },
    { name: "deepspeed", version: "0.19.5", source: "requirements.txt" },
    { name: "ray[default]", version: "2.55.0", source: "requirements.txt" },
    { name: "flash-attn", version: "2.8.3", source: "requirements.txt" },
  ],
  notes: [
    "The newest release tag of OpenRLHF/OpenRLHF.",
    "torch is not listed: OpenRLHF's requirements.txt names it without a version and its Dockerfile lets vllm==0.27.1 install the torch it pins; flash-attn then builds against that torch (the Dockerfile installs it last, with --no-build-isolation).",
  ],
};

const OPENRLHF_PRM: TrainerRelease = {
  trainer: "OpenRLHF",
  repository: "OpenRLHF/OpenRLHF",
  release: "0.9.5",
  tag: "v0.9.5",
  sourceCommit: "c0e2ee2473cd115863630599cc3d51917d4b7c3e",
  checked: [
    "openrlhf/cli/train_prm.py",
    "openrlhf/datasets/process_reward_dataset.py",
    "openrlhf/datasets/utils.py",
    "openrlhf/models/loss.py",
    "openrlhf/trainer/prm_trainer.py",
    "openrlhf/utils/deepspeed/deepspeed.py",
    "openrlhf/utils/utils.py",
  ],
  requirements: [
    { name: "openrlhf", version: "0.9.5", source: "the release (tag v0.9.5, version.txt)" },
    { name: "transformers", version: "5.3.0", source: "requirements.txt" },
    { name: "deepspeed", version: "0.18.7", source: "requirements.txt" },
    { name: "ray[default]", version: "2.48.0", source: "requirements.txt" },
    { name: "flash-attn", version: "2.8.3", source: "requirements.txt" },
  ],
  notes: [
    "The last OpenRLHF release with train_prm: commit 6a981c8c (2026-03-19, \"remove KTO, PRM, KD, batch_inference, and interactive_chat modules\") removed openrlhf/cli/train_prm.py and ProcessRewardDataset, so v0.9.6 and later (0.11.0 included) cannot train a process reward model.",
    "torch is not listed: requirements.txt names it without a version (the release's Dockerfile takes it from vllm==0.17.0, whose flash-attn wheel is built for torch 2.10); train_prm itself does not use vLLM.",
  ],
};

const TRL_PINS: PinnedRequirement[] = [
  { name: "trl", version: "1.9.0", source: "the release (tag v1.9.0, VERSION)" },
  { name: "transformers", version: "4.56.2", source: ".github/workflows/tests.yml, job tests_min_versions (pyproject.toml: transformers>=4.56.2)" },
  { name: "datasets", version: "4.7.0", source: ".github/workflows/tests.yml, job tests_min_versions (pyproject.toml: datasets>=4.7.0)" },
  { name: "accelerate", version: "1.4.0", source: ".github/workflows/tests.yml, job tests_min_versions (pyproject.toml: accelerate>=1.4.0)" },
  { name: "torch", version: "2.8.0", source: ".github/workflows/tests.yml, job tests_min_versions (container pytorch/pytorch:2.8.0-cuda12.8-cudnn9-devel)" },
];

const TRL_CHECKED = "The newest release tag in the huggingface/trl source at hand (its main branch stood at 1.10.0.dev0 on 2026-07-24); the dependency pins are the set TRL's own CI tests that release with.";

const TRL: TrainerRelease = {
  trainer: "TRL",
  repository: "huggingface/trl",
  release: "1.9.0",
  tag: "v1.9.0",
  sourceCommit: "35def3ee000a87f6839e66f4b7749b06274ed1b3",
  checked: ["trl/trainer/grpo_config.py", "trl/trainer/base_config.py"],
  requirements: TRL_PINS,
  notes: [TRL_CHECKED],
};

const TRL_PRM: TrainerRelease = {
  ...TRL,
  checked: ["examples/scripts/prm.py", "trl/scripts/utils.py", "trl/experimental/prm/prm_config.py", "trl/experimental/prm/prm_trainer.py", "trl/trainer/base_config.py", "trl/trainer/model_config.py"],
  notes: [
    "PRMTrainer lives in trl.experimental.prm (trl/experimental/prm/) at this release, and examples/scripts/prm.py (in a checkout of the tag; the wheel does not ship it) runs it. TRL removed the PRM trainer later (huggingface/trl#7133, \"Remove the experimental PRM trainer\", merged 2026-09-17; axolotl-ai-cloud/axolotl#4017 pins 1.13.0 as the last release with it), so releases after that cannot run this command. The TRL source at hand ends before 1.13.0 (its newest tag is v1.9.0), so the export pins the newest release whose PRM script and configuration were read.",
    TRL_CHECKED,
  ],
};

export const TRAINER_RELEASES: Readonly<Record<TrainingSetFormat, TrainerRelease>> = {
  verl: VERL,
  openrlhf: OPENRLHF,
  trl: TRL,
  "trl-prm": TRL_PRM,
  "openrlhf-prm": OPENRLHF_PRM,
};

/** requirements.txt: one `name==version` line per pin, the trainer first. */
export function requirementsTxt(release: TrainerRelease): string {
  return release.requirements.map((pin) => `${pin.name}==${pin.version}\n`).join("");
}

/** What manifest.json records of the release. */
export function releaseRecord(release: TrainerRelease) {
  return {
    trainer: release.trainer,
    release: release.release,
    sourceCommit: release.sourceCommit,
    repository: release.repository,
    tag: release.tag,
    checked: release.checked,
    requirements: release.requirements,
    notes: release.notes,
  };
}
