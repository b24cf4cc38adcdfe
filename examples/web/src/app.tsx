import { type SessionInfo, toApiError } from "@modpack/client";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type ReactNode, useEffect } from "react";
import { serviceUrl, signInUrl, signOut, useTRPC } from "./api";
import { ErrorNotice, Loading } from "./components";
import { LiveNotifications } from "./notifications";
import { Link, matchPath, usePath } from "./router";
import { pages } from "./routes";

export function App() {
  const trpc = useTRPC();
  const path = usePath();
  // A 401 means "not signed in", not a failure to retry.
  const session = useQuery(trpc.auth.session.queryOptions(undefined, { retry: false }));
  const signedOut = session.isError && toApiError(session.error).status === 401;
  const user = session.data ?? null;

  const match = pages.flatMap((page) => {
    const params = matchPath(page.path, path);
    return params ? [{ page, params }] : [];
  })[0];

  const title = match?.page.title ?? "Not found";
  useEffect(() => {
    document.title = `${title} · Modpacks`;
  }, [title]);

  let content: ReactNode;
  if (!match) {
    content = (
      <div className="empty">
        <p className="empty-title">Nothing here</p>
        <p>
          <Link to="/">Go to your modpacks</Link>
        </p>
      </div>
    );
  } else if (session.isPending) {
    content = <Loading />;
  } else if (session.isError && !signedOut) {
    content = <ErrorNotice error={session.error} title="Could not reach the service." />;
  } else if (!user && !match.page.public) {
    content = <SignIn />;
  } else {
    content = match.page.render(match.params, user);
  }

  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ▣
          </span>{" "}
          Modpacks
        </Link>
        <nav aria-label="Pages">
          {pages
            .filter((page) => page.nav)
            .map((page) => (
              <Link key={page.path} to={page.path}>
                {page.title}
              </Link>
            ))}
        </nav>
        {user ? (
          <Account session={user} />
        ) : (
          // Pages closed to visitors show the sign-in link themselves.
          signedOut &&
          match?.page.public && (
            <a className="button button-primary" href={signInUrl()}>
              Sign in
            </a>
          )
        )}
      </header>
      <div className={user ? "layout" : "layout layout-single"}>
        <main>{content}</main>
        {user && (
          <aside>
            <LiveNotifications />
          </aside>
        )}
      </div>
    </div>
  );
}

function Account({ session }: { session: SessionInfo }) {
  const queryClient = useQueryClient();
  const { user } = session;
  // The development identity provider's avatars are on the service: a relative image is the service's.
  const image = user.image?.startsWith("/") ? serviceUrl(user.image) : user.image;
  return (
    <div className="account">
      {image && <img className="avatar" src={image} alt="" width={32} height={32} />}
      <span className="account-text">
        Signed in as <strong>{user.name}</strong> <span className="muted">{user.email}</span>
      </span>
      <button
        type="button"
        className="button-quiet"
        onClick={async () => {
          await signOut();
          queryClient.clear();
          window.location.assign("/");
        }}
      >
        Sign out
      </button>
    </div>
  );
}

function SignIn() {
  return (
    <section className="hero">
      <h1>Your Project Zomboid modpacks, in one place</h1>
      <p>
        Collect Steam Workshop mods, keep them in a load order that works, and download a ready{" "}
        <code>servertest.ini</code> for your server.
      </p>
      <p className="muted">You are not signed in.</p>
      <a className="button button-primary button-large" href={signInUrl()}>
        Sign in
      </a>
    </section>
  );
}
