"use client";

import type { RouterOutputs } from "@stepwiser/api";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Card, CardTitle, DataTable, dataColumns, ErrorAlert, type DataColumn } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { useTRPC } from "~/trpc/react";

const kappaText = (kappa: number) => kappa.toFixed(3);

/** Landis & Koch's (1977) reading of a kappa: the upper end of each band (inclusive) and its word. */
const KAPPA_BANDS: ReadonlyArray<{ upTo: number; word: string; range: string }> = [
  { upTo: -Number.EPSILON, word: "poor", range: "below 0" },
  { upTo: 0.2, word: "slight", range: "0–0.20" },
  { upTo: 0.4, word: "fair", range: "0.21–0.40" },
  { upTo: 0.6, word: "moderate", range: "0.41–0.60" },
  { upTo: 0.8, word: "substantial", range: "0.61–0.80" },
  { upTo: 1, word: "almost perfect", range: "0.81–1" },
];

/** Landis & Koch's word for a kappa, so a number reads at a glance. */
export function kappaWord(kappa: number): string {
  return (KAPPA_BANDS.find((band) => kappa <= band.upTo) ?? KAPPA_BANDS[KAPPA_BANDS.length - 1]!).word;
}

const percent = (rate: number) => `${Math.round(rate * 1000) / 10} %`;

/**
 * What the κ shown mean, the bands they are read in with this queue's marked,
 * and, for the demo queue, how its simulated annotators were made.
 */
function KappaExplanation({ agreement }: { agreement: Agreement }) {
  const shown = agreement.fleiss ?? agreement.cohen[0] ?? null;
  const which = agreement.fleiss ? "Fleiss' κ" : "Cohen's κ";
  const word = shown ? kappaWord(shown.kappa) : null;
  return (
    <div data-testid="kappa-explanation" className="space-y-1 text-xs text-slate-600">
      <p>
        Cohen&apos;s κ compares two annotators and Fleiss&apos; κ all of them at once: both take the share of {agreement.unit === "chunk" ? "chunks" : "solutions"} rated alike and correct it for the agreement
        that chance would give with the same rating habits, so 1 means they always agree, 0 no better than chance, and below 0 worse.
      </p>
      <p>
        Landis &amp; Koch&apos;s reading:{" "}
        {KAPPA_BANDS.map((band, i) => (
          <span key={band.word} className={band.word === word ? "font-semibold text-slate-900" : undefined} data-current={band.word === word ? "true" : undefined}>
            {band.range} {band.word}
            {i < KAPPA_BANDS.length - 1 ? ", " : ""}
          </span>
        ))}
        .{shown && word && <span data-testid="kappa-band"> This queue&apos;s {which} of {kappaText(shown.kappa)} reads as {word}.</span>}
      </p>
      {agreement.simulatedAnnotators && agreement.simulatedAnnotators.length > 0 && (
        <p data-testid="simulated-annotators">
          The demo annotators are simulated: each gives the simulated world&apos;s true label of every chunk (+1 right, −1 wrong) and slips, independently and with a seeded draw, at a stated error rate:{" "}
          {agreement.simulatedAnnotators.map((a) => `${a.name} ${percent(a.errorRate)}`).join(", ")}. Over a few chunks the slips they actually made can differ from those rates.
        </p>
      )}
    </div>
  );
}

type Agreement = RouterOutputs["annotationQueue"]["agreement"];
type Disagreement = Agreement["disagreements"][number];

const column = dataColumns<Disagreement>();

function disagreementColumns(unit: Agreement["unit"], queueId: string, canAdjudicate: boolean): DataColumn<Disagreement>[] {
  return [
    column.accessor("externalId", {
      header: "Solution",
      meta: { className: "font-mono" },
      cell: ({ row: { original: d } }) =>
        canAdjudicate ? (
          <Link href={`/annotation-queues/${queueId}/items/${d.itemId}`} className="text-blue-700 hover:underline">
            {d.externalId}
          </Link>
        ) : (
          d.externalId
        ),
    }),
    column.accessor("chunkIndex", { header: unit === "chunk" ? "Chunk" : "", meta: { className: "font-mono" }, cell: (c) => (c.getValue() === null ? "" : `#${c.getValue()}`) }),
    column.display({
      id: "ratings",
      header: "Annotators said",
      cell: ({ row: { original: d } }) =>
        d.ratings.map((r) => (
          <span key={r.annotatorId} className="mr-3">
            {r.name}: <span className="font-mono">{unit === "chunk" ? ratingText(r.rating) : firstErrorText(r.firstErrorIndex)}</span>
          </span>
        )),
    }),
    column.accessor("adjudicated", { header: "Status", cell: (c) => (c.getValue() ? <span className="text-green-800">adjudicated</span> : <span className="text-amber-800">open</span>) }),
  ];
}

/** Cohen's κ per annotator pair, Fleiss' κ over the queue, and the items annotators disagree on. */
export function AgreementPanel({ queueId, canAdjudicate }: { queueId: string; canAdjudicate: boolean }) {
  const trpc = useTRPC();
  const agreement = useQuery({ ...trpc.annotationQueue.agreement.queryOptions({ queueId }), refetchInterval: 5000 });
  if (agreement.error) return <ErrorAlert>{errorMessage(agreement.error)}</ErrorAlert>;
  const a = agreement.data;
  if (!a) return null;
  const unit = a.unit === "chunk" ? "chunks" : "solutions";
  return (
    <Card as="section" aria-labelledby="agreement-heading" className="space-y-3">
      <CardTitle id="agreement-heading" className="text-slate-700">
        Agreement
      </CardTitle>
      {!a.fleiss && a.cohen.length === 0 && <p className="text-sm text-slate-600">No item has two annotators yet.</p>}
      <div className="flex flex-wrap gap-4">
        {a.fleiss && (
          <div className="rounded border border-slate-200 p-3" data-testid="fleiss-kappa" data-kappa={a.fleiss.kappa}>
            <div className="text-xs text-slate-500">Fleiss&apos; κ ({a.fleiss.raters} raters)</div>
            <div className="text-2xl font-semibold tabular-nums">{kappaText(a.fleiss.kappa)}</div>
            <div className="text-xs text-slate-600">
              {kappaWord(a.fleiss.kappa)} · {a.fleiss.items} {unit} · observed {(a.fleiss.observedAgreement * 100).toFixed(1)} %, chance {(a.fleiss.expectedAgreement * 100).toFixed(1)} %
            </div>
          </div>
        )}
        {a.cohen.map((pair) => (
          <div key={`${pair.a.id}-${pair.b.id}`} className="rounded border border-slate-200 p-3" data-testid="cohen-kappa" data-kappa={pair.kappa} data-annotators={`${pair.a.name}|${pair.b.name}`}>
            <div className="text-xs text-slate-500">
              Cohen&apos;s κ · {pair.a.name} & {pair.b.name}
            </div>
            <div className="text-2xl font-semibold tabular-nums">{kappaText(pair.kappa)}</div>
            <div className="text-xs text-slate-600">
              {kappaWord(pair.kappa)} · {pair.items} {unit} · observed {(pair.observedAgreement * 100).toFixed(1)} %
            </div>
          </div>
        ))}
      </div>
      {(a.fleiss || a.cohen.length > 0) && <KappaExplanation agreement={a} />}
      {a.disagreements.length > 0 && (
        <>
          <h3 className="text-sm font-medium text-slate-700">Disagreements to adjudicate ({a.disagreements.length})</h3>
          <div className="text-sm">
            <DataTable
              look="inline"
              data={a.disagreements}
              columns={disagreementColumns(a.unit, queueId, canAdjudicate)}
              getRowId={(d) => `${d.itemId}-${d.chunkIndex ?? "all"}`}
              rowAttributes={() => ({ "data-testid": "disagreement-row" })}
            />
          </div>
        </>
      )}
    </Card>
  );
}

export function ratingText(rating: number | null): string {
  return rating === null ? "—" : rating > 0 ? "+1" : String(rating);
}

export function firstErrorText(index: number | null): string {
  return index === null ? "—" : index === -1 ? "no error" : `chunk ${index}`;
}
