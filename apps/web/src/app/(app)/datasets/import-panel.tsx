"use client";

import type { RouterInputs } from "@stepwiser/api";
import type { ImportFormat, OnInvalidPolicy } from "@stepwiser/core";
import { skipToken, useMutation, useQuery } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { Button, Card, CardTitle, ErrorAlert, Field, Input, ProgressBar, Select } from "~/components/ui";
import { errorMessage } from "~/lib/error-message";
import { formatBytes } from "~/lib/format-bytes";
import { useTRPC } from "~/trpc/react";
import { EMPTY_MAPPING, FieldMappingForm, fieldMappingOf, type MappingDraft } from "./field-mapping-form";
import { ACCEPTED_IMPORT_FILES, formatUsesMapping, IMPORT_FORMAT_CHOICES, IMPORT_FORMAT_OPTIONS } from "./import-formats";
import { DEFAULT_MAX_INVALID_PERCENT, ON_INVALID_CHOICES, policyNote, policyOptionsOf } from "./import-policy";
import { ImportPreview } from "./import-preview";
import { ImportRunStatus } from "./import-run-status";
import { uploadFile, type UploadedFile } from "./upload-file";

type ImportOptions = RouterInputs["import"]["start"]["options"];
type PreviewInput = RouterInputs["import"]["preview"];

/**
 * Upload, preview and import of a solutions file in any supported format. The
 * file is uploaded once (streamed to `/api/uploads`) and then referred to by
 * its id: previews with other options and the import itself reuse it.
 */
export function ImportPanel() {
  const trpc = useTRPC();
  const [file, setFile] = useState<File | null>(null);
  const [format, setFormat] = useState<ImportFormat>("processbench");
  const [mapping, setMapping] = useState<MappingDraft>(EMPTY_MAPPING);
  const [subset, setSubset] = useState("");
  const [generator, setGenerator] = useState("");
  const [datasetName, setDatasetName] = useState("");
  const [datasetId, setDatasetId] = useState("");
  const [duplicates, setDuplicates] = useState<"skip" | "replace">("skip");
  const [onInvalid, setOnInvalid] = useState<OnInvalidPolicy>("fail");
  const [maxInvalidPercent, setMaxInvalidPercent] = useState(DEFAULT_MAX_INVALID_PERCENT);
  const [policyError, setPolicyError] = useState<string | null>(null);

  const uploaded = useRef<{ file: File; result: UploadedFile } | null>(null);
  const [upload, setUpload] = useState<{ sent: number; total: number } | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [previewInput, setPreviewInput] = useState<PreviewInput | null>(null);
  const [runId, setRunId] = useState<string | null>(null);
  // What the last import was started with: a refused replace import is started again from it, deleting the human work.
  const [lastStart, setLastStart] = useState<{ fileId: string; options: ImportOptions } | null>(null);

  const datasets = useQuery(trpc.dataset.list.queryOptions());
  const preview = useQuery({ ...trpc.import.preview.queryOptions(previewInput ?? skipToken), staleTime: Infinity });
  const start = useMutation(trpc.import.start.mutationOptions({ onSuccess: ({ runId }) => setRunId(runId) }));

  async function ensureUploaded(): Promise<UploadedFile | null> {
    setUploadError(null);
    if (!file) {
      setUploadError("Choose a file first.");
      return null;
    }
    if (uploaded.current?.file === file) return uploaded.current.result;
    setUpload({ sent: 0, total: file.size });
    try {
      const result = await uploadFile(file, (sent, total) => setUpload({ sent, total }));
      uploaded.current = { file, result };
      return result;
    } catch (error) {
      setUploadError(errorMessage(error));
      return null;
    } finally {
      setUpload(null);
    }
  }

  const readOptions = () => ({
    subset: subset.trim() || undefined,
    generator: generator.trim() || undefined,
    mapping: formatUsesMapping(format) ? fieldMappingOf(mapping) : undefined,
  });

  async function onPreview() {
    const stored = await ensureUploaded();
    if (stored) setPreviewInput({ fileId: stored.fileId, format, ...readOptions() });
  }

  async function onImport(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const policy = policyOptionsOf(onInvalid, maxInvalidPercent);
    setPolicyError("error" in policy ? policy.error : null);
    if ("error" in policy) return;
    const stored = await ensureUploaded();
    if (!stored) return;
    const options: ImportOptions = {
      format,
      ...readOptions(),
      ...(datasetId ? { datasetId } : { datasetName: datasetName.trim() || undefined }),
      duplicates,
      ...policy.options,
    };
    setRunId(null);
    setLastStart({ fileId: stored.fileId, options });
    start.mutate({ fileId: stored.fileId, options });
  }

  /** The refused import again, over the same upload and options, deleting the human work the user confirmed. */
  function importDeletingHumanWork() {
    if (!lastStart) return;
    const options: ImportOptions = { ...lastStart.options, deleteHumanLabels: true };
    setLastStart({ fileId: lastStart.fileId, options });
    start.mutate({ fileId: lastStart.fileId, options });
  }

  function chooseFile(next: File | null) {
    setFile(next);
    setPreviewInput(null);
    setUploadError(null);
    start.reset();
  }

  const busy = upload !== null || start.isPending;
  const error = policyError ?? uploadError ?? (start.error ? errorMessage(start.error) : null);
  return (
    <Card as="section" aria-label="Import" className="space-y-4">
      <CardTitle>Import solutions</CardTitle>
      <form onSubmit={(event) => void onImport(event)} aria-label="Import a file" className="space-y-4">
        <div className="grid gap-4 sm:grid-cols-3">
          <Field label="Import file" hint={file ? `${file.name} · ${formatBytes(file.size)}` : undefined}>
            <input
              name="file"
              type="file"
              accept={ACCEPTED_IMPORT_FILES}
              className="mt-1 block w-full text-sm"
              onChange={(e) => chooseFile(e.target.files?.[0] ?? null)}
            />
          </Field>
          <Field label="Format" hint={IMPORT_FORMAT_CHOICES[format].hint}>
            <Select
              value={format}
              onChange={(e) => {
                setFormat(e.target.value as ImportFormat);
                setPreviewInput(null);
              }}
              options={IMPORT_FORMAT_OPTIONS}
            />
          </Field>
          <Field label="Duplicates" hint="A record already in the dataset (same id or same content). Replacing solutions that hold human labels or annotation work is refused until you confirm it.">
            <Select
              value={duplicates}
              onChange={(e) => setDuplicates(e.target.value as "skip" | "replace")}
              options={[
                ["skip", "skip it"],
                ["replace", "replace it"],
              ]}
            />
          </Field>
        </div>
        {formatUsesMapping(format) && <FieldMappingForm value={mapping} onChange={setMapping} />}
        <div className="grid gap-4 sm:grid-cols-3">
          <Field label="On invalid records" hint="A record that cannot be read (bad JSON, a missing or malformed field).">
            <Select value={onInvalid} onChange={(e) => setOnInvalid(e.target.value as OnInvalidPolicy)} options={ON_INVALID_CHOICES} />
          </Field>
          {onInvalid === "skip" && (
            <Field label="Largest invalid share (%)" hint="Above this share of the records the import fails and stores nothing.">
              <Input type="number" min={0} max={100} step="any" value={maxInvalidPercent} onChange={(e) => setMaxInvalidPercent(e.target.value)} />
            </Field>
          )}
        </div>
        <div className="grid gap-4 sm:grid-cols-4">
          <Field label="Add to dataset">
            <Select value={datasetId} onChange={(e) => setDatasetId(e.target.value)} placeholder="a new dataset" options={(datasets.data ?? []).map((d) => [d.id, d.name] as const)} />
          </Field>
          <Field label="Dataset name (optional)" hint={datasetId ? "Adding to an existing dataset." : "Default: the format and file name."}>
            <Input type="text" maxLength={200} value={datasetName} disabled={datasetId !== ""} onChange={(e) => setDatasetName(e.target.value)} />
          </Field>
          <Field label="Subset (optional)" hint="Overrides every record's subset.">
            <Input type="text" maxLength={100} value={subset} onChange={(e) => setSubset(e.target.value)} />
          </Field>
          <Field label="Generator (optional)" hint="The policy that wrote the solutions, where the file does not say.">
            <Input type="text" maxLength={200} value={generator} onChange={(e) => setGenerator(e.target.value)} />
          </Field>
        </div>
        {upload && (
          <div className="space-y-1" data-testid="upload-progress">
            <ProgressBar done={upload.sent} total={upload.total} label="Upload progress" />
            <p className="text-xs text-slate-600 tabular-nums">
              Uploading {formatBytes(upload.sent)} of {formatBytes(upload.total)}
            </p>
          </div>
        )}
        <div className="flex flex-wrap gap-3">
          <Button onClick={() => void onPreview()} disabled={busy || preview.isFetching} className="font-medium">
            {preview.isFetching ? "Reading…" : "Preview"}
          </Button>
          <Button type="submit" variant="dark" disabled={busy}>
            {upload ? "Uploading…" : start.isPending ? "Starting…" : "Import"}
          </Button>
        </div>
        <p className="text-xs text-slate-500">{policyNote(onInvalid)}</p>
        {error && <ErrorAlert>{error}</ErrorAlert>}
      </form>
      {preview.error && <ErrorAlert>{errorMessage(preview.error)}</ErrorAlert>}
      {previewInput && preview.data && <ImportPreview preview={preview.data} format={previewInput.format} />}
      {runId && (
        <ImportRunStatus
          key={runId}
          runId={runId}
          onDeleteHumanWork={lastStart && !lastStart.options.deleteHumanLabels ? importDeletingHumanWork : undefined}
          deleting={start.isPending}
        />
      )}
    </Card>
  );
}
