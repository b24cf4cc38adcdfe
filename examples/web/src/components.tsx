import { type GameVersion, type RouterOutputs, toApiError } from "@modpack/client";
import { type ReactNode, useState } from "react";
import { Link } from "./router";

export type Finding = RouterOutputs["checks"]["get"]["findings"][number];

/** A failed call as the service words it, with the fields it names. */
export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const { message, issues = [], status } = toApiError(error);
  // The service's message often names the fields already; list only the ones it does not.
  const unnamed = issues.filter((issue) => !message.includes(issue.message));
  return (
    <div role="alert" className="notice notice-error">
      <strong>{title ?? (status ? `Error ${status}` : "Error")}</strong> {message}
      {unnamed.length > 0 && (
        <ul>
          {unnamed.map((issue) => (
            <li key={`${issue.path}:${issue.message}`}>
              {issue.path && <code>{issue.path}</code>} {issue.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Loading({ label = "Loading…" }: { label?: string }) {
  return (
    <p className="loading" aria-busy="true">
      <span className="spinner" aria-hidden="true" /> {label}
    </p>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <p>{children}</p>}
    </div>
  );
}

/** A workshop preview or a modpack's image, or its initials where it has none. */
export function Thumbnail({ src, name, size = 48 }: { src: string | null | undefined; name: string; size?: number }) {
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => Array.from(word)[0]?.toUpperCase())
    .join("");
  return src ? (
    <img className="thumb" src={src} alt="" width={size} height={size} loading="lazy" />
  ) : (
    <span className="thumb thumb-empty" style={{ width: size, height: size }} aria-hidden="true">
      {initials}
    </span>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
export const formatDate = (iso: string) => dateFormat.format(new Date(iso));

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The check's verdict for a version, from its findings: whether the pack loads, with how many errors and warnings. */
export function checkVerdict(version: GameVersion, findings: Finding[]): string {
  const errors = findings.filter((finding) => finding.severity === "error").length;
  const warnings = findings.filter((finding) => finding.severity === "warning").length;
  const build = `Build ${version.slice(0, 2)}`;
  if (errors)
    return `Will not load on ${build}: ${count(errors, "error")}${warnings ? `, ${count(warnings, "warning")}` : ""}.`;
  return warnings ? `Loads on ${build}, with ${count(warnings, "warning")}.` : `Ready to load on ${build}.`;
}

/** The check's findings, each as the check words it, marked by its severity. */
export function FindingList({ findings, label }: { findings: Finding[]; label?: string }) {
  return (
    <ul className="findings" aria-label={label}>
      {findings.map((finding) => (
        <li
          key={`${finding.code}:${finding.modId ?? ""}:${finding.message}`}
          className={`finding finding-${finding.severity}`}
        >
          <span className="finding-severity">{finding.severity}</span> {finding.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * Copies `text` to the clipboard; says so until the text changes. Where the browser refuses (no
 * secure origin, no permission), it says to select the text instead.
 */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<{ text: string; ok: boolean } | null>(null);
  const state = copied?.text === text ? (copied.ok ? "Copied" : "Select the text to copy it") : "Copy";
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => setCopied({ text, ok: true }),
      () => setCopied({ text, ok: false }),
    );
  return (
    <button type="button" className="button-small" aria-label={label} onClick={copy}>
      {state}
    </button>
  );
}

/** A secret the service answers only once (a token, a signing secret): said so, with a button to copy it. */
export function ShownOnce({
  secret,
  label,
  copyLabel,
  children,
}: {
  secret: string;
  label: string;
  copyLabel: string;
  children: ReactNode;
}) {
  return (
    <div className="notice token" role="status" aria-label={label}>
      <p>{children}</p>
      <p className="token-secret">
        <code>{secret}</code>
        <CopyButton text={secret} label={copyLabel} />
      </p>
    </div>
  );
}

/** The way back from a page of a modpack: to the user's modpacks, and to the modpack. */
export function ModpackCrumbs({ id, name }: { id: string; name: string }) {
  return (
    <p className="crumbs">
      <Link to="/">My modpacks</Link> / <Link to={`/modpacks/${encodeURIComponent(id)}`}>{name}</Link> /
    </p>
  );
}

/** A block of text to copy as it stands: a file, a script, a command. */
export function CodeBlock({ text, label }: { text: string; label: string }) {
  return (
    <figure className="code-block" aria-label={label}>
      <figcaption>
        <span>{label}</span>
        <CopyButton text={text} label={`Copy ${label}`} />
      </figcaption>
      <pre>{text}</pre>
    </figure>
  );
}

/** A modpack page whose modpack did not load: the service's words, and the way back. */
export function ModpackUnavailable({ error }: { error: unknown }) {
  return (
    <>
      <ErrorNotice error={error} title="Could not open this modpack." />
      <p>
        <Link to="/">Back to my modpacks</Link>
      </p>
    </>
  );
}

/** The game version a modpack page shows: Build 42 or Build 41. */
export function GameVersionSelect({
  value,
  onChange,
}: {
  value: GameVersion;
  onChange: (version: GameVersion) => void;
}) {
  return (
    <label className="inline-field">
      Game version
      <select value={value} onChange={(event) => onChange(event.target.value as GameVersion)}>
        <option value="42x">Build 42</option>
        <option value="41x">Build 41</option>
      </select>
    </label>
  );
}
