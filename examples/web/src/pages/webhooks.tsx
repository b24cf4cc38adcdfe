import type { Webhook, WebhookDelivery, WebhookEventType } from "@modpack/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { useTRPC } from "../api";
import { Empty, ErrorNotice, Loading, ModpackCrumbs, ModpackUnavailable, ShownOnce } from "../components";

/** Every event a webhook can take, with what it reports; the type keeps the list whole. */
const EVENTS: Record<WebhookEventType, string> = {
  "mods.updated": "mods updated or removed on the workshop",
  "modpack.changed": "mods added or removed, load order changed",
  "export.ready": "a server file is ready",
  "export.failed": "a server file could not be made",
  "import.finished": "an import ended",
  "webhook.test": "a test sent from here",
};
const eventTypes = Object.keys(EVENTS) as WebhookEventType[];

/** How often the deliveries are read again while one is still pending. */
const PENDING_REFRESH_MS = 1000;

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/**
 * A modpack's webhooks: where its events are POSTed, each with its deliveries. The service lets
 * only the pack's owner see them; anyone else gets its refusal, worded as it words it.
 */
export function WebhooksPage({ id }: { id: string }) {
  const trpc = useTRPC();
  const modpack = useQuery(trpc.modpacks.get.queryOptions({ id }));
  const webhooks = useQuery(trpc.webhooks.list.queryOptions({ id }));

  if (modpack.isPending) return <Loading label="Loading the modpack…" />;
  if (modpack.isError) return <ModpackUnavailable error={modpack.error} />;

  return (
    <>
      <header className="page-header">
        <ModpackCrumbs id={id} name={modpack.data.name} />
        <h1>Webhooks</h1>
        <p className="muted">
          The pack's events POSTed to a URL of yours, signed the Standard Webhooks way: a restart script waiting for{" "}
          <code>mods.updated</code>, a Discord channel, a bot.
        </p>
      </header>
      {webhooks.isPending ? (
        <Loading label="Loading the webhooks…" />
      ) : webhooks.isError ? (
        <ErrorNotice error={webhooks.error} title="Could not load the webhooks." />
      ) : (
        <div className="modpack-layout">
          <section className="panel" aria-labelledby="webhook-list-heading">
            <h2 id="webhook-list-heading">This pack's webhooks</h2>
            {webhooks.data.data.length === 0 ? (
              <Empty title="No webhooks yet">Add one below and send it a test.</Empty>
            ) : (
              <ul className="webhooks" aria-label="Webhooks">
                {webhooks.data.data.map((webhook) => (
                  <WebhookItem key={webhook.id} id={id} webhook={webhook} />
                ))}
              </ul>
            )}
          </section>
          <CreateWebhookSection id={id} />
        </div>
      )}
    </>
  );
}

/** A new webhook: its URL, events and description; the answer's secret is shown this once. */
function CreateWebhookSection({ id }: { id: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ id }) }),
    }),
  );

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const events = eventTypes.filter((type) => form.getAll("events").includes(type));
    const description = String(form.get("description") ?? "");
    // No event ticked is sent as such, for the service to refuse in its own words.
    create.mutate(
      { id, url: String(form.get("url") ?? ""), events, ...(description ? { description } : {}) },
      { onSuccess: () => formElement.reset() },
    );
  };

  return (
    <section className="panel" aria-labelledby="new-webhook-heading">
      <h2 id="new-webhook-heading">Add a webhook</h2>
      <form className="webhook-form" onSubmit={onSubmit}>
        <label>
          Webhook URL
          <input name="url" type="text" inputMode="url" required autoComplete="off" placeholder="https://" />
        </label>
        <label>
          Description
          <input name="description" maxLength={200} autoComplete="off" />
        </label>
        <fieldset className="event-choice">
          <legend>Events</legend>
          {eventTypes.map((type) => (
            <label key={type} className="checkbox">
              <input type="checkbox" name="events" value={type} defaultChecked />
              <code>{type}</code> <span className="muted">{EVENTS[type]}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" className="button-primary" disabled={create.isPending}>
          {create.isPending ? "Adding…" : "Add webhook"}
        </button>
      </form>
      <ErrorNotice error={create.error} title="Could not add the webhook." />
      {create.data && (
        <ShownOnce
          secret={create.data.secret}
          label={`Signing secret of ${create.data.description || create.data.url}`}
          copyLabel="Copy the secret"
        >
          <strong>Copy the signing secret now: it is shown only this once.</strong> Verify each delivery with it and any
          Standard Webhooks library.
        </ShownOnce>
      )}
    </section>
  );
}

/** One webhook: what it is, its switches, and its deliveries. */
function WebhookItem({ id, webhook }: { id: string; webhook: Webhook }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const path = { id, webhookId: webhook.id };
  const [awaited, setAwaited] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const refreshList = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey({ id }) });
  const test = useMutation(
    trpc.webhooks.test.mutationOptions({
      onSuccess: ({ deliveryId }) => {
        setAwaited(deliveryId);
        return queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey(path) });
      },
    }),
  );
  const update = useMutation(
    trpc.webhooks.update.mutationOptions({
      // A test refused while the webhook was disabled is no longer the news once it changed.
      onSuccess: () => {
        test.reset();
        return refreshList();
      },
    }),
  );
  const remove = useMutation(trpc.webhooks.remove.mutationOptions({ onSuccess: refreshList }));
  const deliveries = useQuery(
    trpc.webhooks.deliveries.queryOptions(path, {
      // Read again while an attempt is pending, or the test just sent is not listed yet.
      refetchInterval: (query) => {
        const list = query.state.data?.data ?? [];
        const waiting =
          list.some((delivery) => delivery.status === "pending") ||
          (awaited !== null && !list.some((delivery) => delivery.id === awaited));
        return waiting ? PENDING_REFRESH_MS : false;
      },
    }),
  );
  const busy = update.isPending || remove.isPending || test.isPending;
  const label = webhook.description || webhook.url;

  return (
    <li className="webhook" aria-label={label}>
      <div className="webhook-head">
        <code className="webhook-url">{webhook.url}</code>
        <p className="card-meta">
          <span className={`badge ${webhook.isActive ? "badge-public" : "badge-warning"}`}>
            {webhook.isActive ? "Active" : "Disabled"}
          </span>
          <span className="badge">{webhook.format === "discord" ? "Discord" : "Standard Webhooks"}</span>
        </p>
      </div>
      {webhook.description && <p>{webhook.description}</p>}
      <ul className="webhook-events" aria-label="Events">
        {webhook.events.map((type) => (
          <li key={type}>
            <code>{type}</code>
          </li>
        ))}
      </ul>
      <p className="webhook-actions">
        <button
          type="button"
          className="button-small"
          disabled={busy}
          onClick={() => test.mutate(path)}
          aria-label={`Send a test to ${label}`}
        >
          {test.isPending ? "Sending…" : "Send test"}
        </button>
        <button
          type="button"
          className="button-small"
          disabled={busy}
          onClick={() => update.mutate({ ...path, isActive: !webhook.isActive })}
          aria-label={`${webhook.isActive ? "Disable" : "Enable"} ${label}`}
        >
          {webhook.isActive ? "Disable" : "Enable"}
        </button>
        {confirming ? (
          <span className="webhook-confirm">
            Delete it and its deliveries?
            <button
              type="button"
              className="button-small icon-danger"
              disabled={busy}
              onClick={() => remove.mutate(path)}
              aria-label={`Yes, delete ${label}`}
            >
              {remove.isPending ? "Deleting…" : "Yes, delete"}
            </button>
            <button type="button" className="button-small" disabled={busy} onClick={() => setConfirming(false)}>
              Keep it
            </button>
          </span>
        ) : (
          <button
            type="button"
            className="button-small icon-danger"
            disabled={busy}
            onClick={() => setConfirming(true)}
            aria-label={`Delete ${label}`}
          >
            Delete
          </button>
        )}
      </p>
      <ErrorNotice error={test.error} title="Could not send a test." />
      <ErrorNotice error={update.error} title="Could not change the webhook." />
      <ErrorNotice error={remove.error} title="Could not delete the webhook." />
      {deliveries.isPending ? (
        <Loading label="Loading the deliveries…" />
      ) : deliveries.isError ? (
        <ErrorNotice error={deliveries.error} title="Could not load the deliveries." />
      ) : deliveries.data.data.length === 0 ? (
        <p className="muted">No deliveries yet.</p>
      ) : (
        <DeliveryTable deliveries={deliveries.data.data} label={label} />
      )}
    </li>
  );
}

/** A webhook's attempts, newest first, each as the service logged it. */
function DeliveryTable({ deliveries, label }: { deliveries: WebhookDelivery[]; label: string }) {
  return (
    <div className="table-scroll">
      <table className="deliveries" aria-label={`Deliveries of ${label}`}>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Answer</th>
            <th scope="col">Attempt</th>
            <th scope="col">Error</th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} className={`delivery delivery-${delivery.status}`}>
              <td data-label="Event">
                <code>{delivery.eventType}</code>
              </td>
              <td data-label="Status">
                <span className="delivery-status">{delivery.status}</span>
              </td>
              <td data-label="Answer">{delivery.responseStatus ?? "—"}</td>
              <td data-label="Attempt">{delivery.attempt}</td>
              <td className="delivery-error" data-label="Error">
                {delivery.error ?? ""}
              </td>
              <td data-label="Time">
                <time dateTime={delivery.createdAt}>{dateTimeFormat.format(new Date(delivery.createdAt))}</time>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
