// Provisional: replaced by the checked launch lines.
import type { LaunchPlan } from "../training-set/launch";
import { TRAINER_RELEASES, type TrainerRelease } from "../training-set/releases";
import type { SftFormat } from "./options";

export const SFT_TRAINER_RELEASES: Record<SftFormat, TrainerRelease> = {
  "chat-jsonl": TRAINER_RELEASES.openrlhf,
  "trl-sft": TRAINER_RELEASES.trl,
  "verl-sft": TRAINER_RELEASES.verl,
};

export interface SftLaunchInput {
  format: SftFormat;
  trainRows: number;
  testRows: number;
  maxSequenceBytes: number;
}

export function sftLaunchPlan(input: SftLaunchInput): LaunchPlan {
  return { trainer: SFT_TRAINER_RELEASES[input.format].trainer, language: "shell", command: null, settings: {}, notes: ["pending"] } as unknown as LaunchPlan;
}
