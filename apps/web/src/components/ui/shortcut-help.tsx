import { shortcutHelpEntries, type ShortcutMap } from "~/hooks/use-shortcuts";

/** The keyboard shortcuts of a page, read from the same map `useShortcuts` listens with. */
export function ShortcutHelp({ shortcuts }: { shortcuts: ShortcutMap }) {
  return (
    <dl role="dialog" aria-label="Keyboard shortcuts" className="grid max-w-md grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded border border-slate-300 bg-white p-3 text-xs shadow">
      {shortcutHelpEntries(shortcuts).map(({ keys, description }) => (
        <div key={keys} className="contents">
          <dt className="font-mono">{keys}</dt>
          <dd>{description}</dd>
        </div>
      ))}
    </dl>
  );
}
