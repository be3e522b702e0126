"use client";

import { useId, useState } from "react";
import { Button, Field, Textarea } from "~/components/ui";

/** The longest reason the API keeps (BLIND_OFF_REASON_MAX). */
const REASON_MAX = 500;

/**
 * The blind-review checkbox of the queue form and the queue's settings.
 * Checked by default; unchecking it (when it was on) asks to confirm, with a
 * reason required before the form can be sent. The form reads `blind`
 * ("on" when checked) and `blindOffReason`.
 */
export function BlindChoice({ initiallyBlind, className }: { initiallyBlind: boolean; className?: string }) {
  const [blind, setBlind] = useState(initiallyBlind);
  const headingId = useId();
  // A queue that is already not blind was confirmed when it was turned off: no second reason is asked for.
  const confirming = initiallyBlind && !blind;
  return (
    <div className={className}>
      <label className="flex items-center gap-2 text-sm">
        <input name="blind" type="checkbox" checked={blind} onChange={(event) => setBlind(event.target.checked)} /> Blind: hide model labels until submitted
      </label>
      {confirming && (
        <div role="alertdialog" aria-labelledby={headingId} data-testid="blind-off-confirm" className="mt-2 space-y-2 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
          <p id={headingId} className="font-medium">
            Turn blind review off?
          </p>
          <p>
            Annotators will see the Monte-Carlo labels, Q-values and judge verdicts before they rate, and people tend to agree with a label they have just seen. The change goes into the audit log with your name and this
            reason, and the queue&apos;s page shows it.
          </p>
          <Field label="Why annotators may see the model's labels (required)">
            <Textarea name="blindOffReason" required maxLength={REASON_MAX} rows={2} placeholder="e.g. calibration round: annotators learn what the judge looks for" />
          </Field>
          <Button onClick={() => setBlind(true)}>Keep blind</Button>
        </div>
      )}
    </div>
  );
}

/** What the form sends: the reason only when blind review is being turned off. */
export function blindFields(form: FormData): { blind: boolean; blindOffReason?: string } {
  const blind = form.get("blind") === "on";
  const reason = String(form.get("blindOffReason") ?? "").trim();
  return blind ? { blind } : { blind, ...(reason ? { blindOffReason: reason } : {}) };
}
