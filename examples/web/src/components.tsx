import { toApiError } from "@modpack/client";
import type { ReactNode } from "react";

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
