import {
  createClient,
  type ModpackMod,
  type ModpackSummary,
  type Notification,
  type SessionInfo,
  toApiError,
} from "@modpack/client";
import { type FormEvent, StrictMode, useCallback, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";

const API_URL = (import.meta.env.VITE_API_URL ?? "http://localhost:3000").replace(/\/+$/, "");

/** One client for the app: the session cookie the service set at sign-in goes with every call. */
const api = createClient({ baseUrl: API_URL });

const signInUrl = () => `${API_URL}/auth/idp?redirectTo=${encodeURIComponent(`${window.location.origin}/`)}`;

/** The download link of a "Server file ready" notification. */
function downloadUrl(notification: Notification): string | null {
  const metadata = JSON.parse(notification.metadata) as { exportId?: string };
  return notification.title === "Server file ready" && metadata.exportId
    ? `${API_URL}/modpacks/export/${metadata.exportId}/download`
    : null;
}

function App() {
  const [session, setSession] = useState<SessionInfo | null | undefined>(undefined);
  const [modpacks, setModpacks] = useState<ModpackSummary[]>([]);
  const [selected, setSelected] = useState<ModpackSummary | null>(null);
  const [mods, setMods] = useState<ModpackMod[]>([]);
  const [notifications, setNotifications] = useState<Notification[]>([]);
  const [error, setError] = useState<string | null>(null);

  /** Runs a call, showing what the service answered when it fails. */
  const attempt = useCallback(async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
    } catch (failure) {
      setError(toApiError(failure).message);
    }
  }, []);

  const loadModpacks = useCallback(async () => {
    setModpacks((await api.modpacks.listMine.query({ limit: 50 })).data);
  }, []);
  const loadMods = useCallback(async (modpack: ModpackSummary) => {
    setMods((await api.modpackMods.list.query({ id: modpack.id, limit: 100 })).data);
  }, []);

  useEffect(() => {
    api.auth.session.query().then(setSession, () => setSession(null));
  }, []);

  useEffect(() => {
    if (!session) return;
    void attempt(loadModpacks);
    // Live notifications over Server-Sent Events, for as long as the page is signed in.
    return api.onNotification((notification) => setNotifications((list) => [notification, ...list]));
  }, [session, attempt, loadModpacks]);

  if (session === undefined) return <p>Loading…</p>;
  if (session === null) {
    return (
      <main>
        <h1>Modpacks</h1>
        <p>You are not signed in.</p>
        <a href={signInUrl()}>Sign in</a>
      </main>
    );
  }

  const create = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name") ?? "");
    void attempt(async () => {
      const created = await api.modpacks.create.mutate({ name });
      form.reset();
      await loadModpacks();
      setSelected(created);
      await loadMods(created);
    });
  };

  const addMod = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!selected) return;
    const form = event.currentTarget;
    const url = String(new FormData(form).get("url") ?? "");
    void attempt(async () => {
      await api.modpackMods.add.mutate({ id: selected.id, modAtribute: url });
      form.reset();
      await loadMods(selected);
    });
  };

  const requestFile = () => {
    if (!selected) return;
    void attempt(() => api.exports.requestServerFile.mutate({ id: selected.id, version: "41x" }));
  };

  return (
    <main>
      <h1>Modpacks</h1>
      <p>
        Signed in as <strong>{session.user.name}</strong> ({session.user.email})
      </p>
      {error && <p role="alert">{error}</p>}

      <section aria-label="Your modpacks">
        <h2>Your modpacks</h2>
        <ul>
          {modpacks.map((modpack) => (
            <li key={modpack.id}>
              <button
                type="button"
                onClick={() => {
                  setSelected(modpack);
                  void attempt(() => loadMods(modpack));
                }}
              >
                {modpack.name}
              </button>
            </li>
          ))}
        </ul>
        <form onSubmit={create}>
          <label>
            New modpack <input name="name" required minLength={3} maxLength={50} />
          </label>
          <button type="submit">Create</button>
        </form>
      </section>

      {selected && (
        <section aria-label="Selected modpack">
          <h2>{selected.name}</h2>
          <ul aria-label="Mods">
            {mods.map((mod) => (
              <li key={mod.id}>
                {mod.name} <small>({mod.platformModId.join(", ")})</small>
              </li>
            ))}
          </ul>
          <form onSubmit={addMod}>
            <label>
              Workshop URL <input name="url" required />
            </label>
            <button type="submit">Add mod</button>
          </form>
          <button type="button" onClick={requestFile}>
            Generate server file (41x)
          </button>
        </section>
      )}

      <section aria-label="Notifications">
        <h2>Notifications</h2>
        <ul>
          {notifications.map((notification) => {
            const download = downloadUrl(notification);
            return (
              <li key={notification.id}>
                <strong>{notification.title}</strong> {notification.content}{" "}
                {download && <a href={download}>Download</a>}
              </li>
            );
          })}
        </ul>
      </section>
    </main>
  );
}

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
