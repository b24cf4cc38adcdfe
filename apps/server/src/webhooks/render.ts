import type { WebhookEvent, WebhookFormat } from "@modpack/contract";

/** A body stays under this many bytes: long lists are cut, their full counts kept. */
export const MAX_BODY_BYTES = 20_000;

/** A list of the payload, cut to keep it small: `items` shown and `total` in all. */
interface Counted {
  items: unknown[];
  total: number;
}

function isCounted(value: unknown): value is Counted {
  return typeof value === "object" && value !== null && Array.isArray((value as Counted).items);
}

/** The event with each of its lists cut to at most `keep` items. */
function cutLists<E extends WebhookEvent>(event: E, keep: number): E {
  const data = Object.fromEntries(
    Object.entries(event.data).map(([key, value]) => [
      key,
      isCounted(value) ? { ...value, items: value.items.slice(0, keep) } : value,
    ]),
  );
  return { ...event, data } as E;
}

/** The largest cut of the event's lists whose body fits in `MAX_BODY_BYTES`. */
function fit(event: WebhookEvent, render: (event: WebhookEvent) => string): string {
  let body = render(event);
  for (let keep = 64; Buffer.byteLength(body) > MAX_BODY_BYTES && keep >= 0; keep = keep === 0 ? -1 : keep >> 1) {
    body = render(cutLists(event, keep));
  }
  return body;
}

/** The body a webhook of the given format receives for an event. */
export function renderEvent(format: WebhookFormat, event: WebhookEvent): string {
  return fit(event, format === "discord" ? (cut) => JSON.stringify(discordMessage(cut)) : (cut) => JSON.stringify(cut));
}

// Discord's limits on what one message's embeds may hold.
const DISCORD = { title: 256, description: 4096, fields: 25, fieldName: 256, fieldValue: 1024, total: 6000 };

const COLORS = { info: 0x3b82f6, success: 0x22c55e, warning: 0xf59e0b, error: 0xef4444 };

interface Embed {
  title: string;
  description: string;
  color: number;
  timestamp: string;
  fields: { name: string; value: string }[];
  footer: { text: string };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Lines joined under a field's limit, with how many were left out. */
function lines(items: string[], total: number, max = DISCORD.fieldValue): string {
  const kept: string[] = [];
  let length = 0;
  for (const item of items) {
    if (length + item.length + 1 > max - 20) break;
    kept.push(item);
    length += item.length + 1;
  }
  const more = total - kept.length;
  return kept.join("\n") + (more > 0 ? `\n… and ${more} more` : "");
}

/** Markdown-safe text: Discord would otherwise render a mod's name as formatting or a link. */
function plain(text: string): string {
  return text.replace(/[\\*_~`|>[\]()#@]/g, (character) => `\\${character}`);
}

function workshopLink(name: string, workshopId: string): string {
  return `[${plain(name)}](https://steamcommunity.com/sharedfiles/filedetails/?id=${workshopId})`;
}

/** A field listing a cut list's items, with its total in the name; none when the list is empty. */
function countedField<T>(name: string, list: { items: T[]; total: number }, text: (item: T) => string) {
  return list.total > 0
    ? { name: `${name} (${list.total})`, value: lines(list.items.map(text), list.total) }
    : undefined;
}

/** The embed Discord renders for an event: the modpack, what changed with workshop links, the check's findings. */
export function discordMessage(event: WebhookEvent): { embeds: Embed[] } {
  const base = { timestamp: event.timestamp, footer: { text: `${event.type} · ${event.data.modpack.id}` }, fields: [] };
  return { embeds: [withinLimits({ ...base, ...embedContent(event) })] };
}

/** What an embed says about an event, before Discord's limits are applied. */
function embedContent(event: WebhookEvent): Pick<Embed, "title" | "description" | "color"> & Partial<Embed> {
  const modpack = plain(event.data.modpack.name);
  switch (event.type) {
    case "mods.updated": {
      const { updated, removed, findings } = event.data;
      const link = (mod: { name: string; workshopId: string }) => workshopLink(mod.name, mod.workshopId);
      const fields = [
        countedField("Updated on the workshop", updated, link),
        countedField("Removed, hidden or delisted", removed, link),
        countedField("New problems", findings, (finding) => plain(finding.message)),
      ].filter((field) => field !== undefined);
      return {
        title: `Mods changed in ${modpack}`,
        description: "Restart the server to pick up the new versions.",
        color: findings.total > 0 || removed.total > 0 ? COLORS.warning : COLORS.info,
        fields,
      };
    }
    case "modpack.changed":
      return {
        title: `${modpack} was changed`,
        description: `By ${event.data.by.map((user) => plain(user.name)).join(", ")}`,
        color: COLORS.info,
        fields: [
          {
            name: `Changes (${event.data.changes.total})`,
            value: lines(
              event.data.changes.items.map((change) => `${change.kind}${change.name ? `: ${plain(change.name)}` : ""}`),
              event.data.changes.total,
            ),
          },
        ],
      };
    case "export.ready":
    case "export.failed":
      return {
        title: `Server file ${event.type === "export.ready" ? "ready" : "failed"}: ${modpack}`,
        description:
          event.type === "export.ready"
            ? `Version ${event.data.version}: ${event.data.downloadPath}`
            : plain(event.data.error ?? "The server file could not be made"),
        color: event.type === "export.ready" ? COLORS.success : COLORS.error,
      };
    case "import.finished":
      return {
        title: `Import ${event.data.status}: ${modpack}`,
        description: `${event.data.modsImported} mods imported, ${event.data.modsFailed} failed`,
        color: event.data.status === "completed" ? COLORS.success : COLORS.error,
      };
    case "webhook.test":
      return {
        title: `Test event from ${modpack}`,
        description: plain(event.data.message),
        color: COLORS.info,
      };
  }
}

function withinLimits(embed: Embed): Embed {
  const clipped: Embed = {
    ...embed,
    title: clip(embed.title, DISCORD.title),
    description: clip(embed.description, DISCORD.description),
    fields: embed.fields.slice(0, DISCORD.fields).map((field) => ({
      name: clip(field.name, DISCORD.fieldName),
      value: clip(field.value || "-", DISCORD.fieldValue),
    })),
  };
  const size = () =>
    clipped.title.length +
    clipped.description.length +
    clipped.footer.text.length +
    clipped.fields.reduce((sum, field) => sum + field.name.length + field.value.length, 0);
  while (size() > DISCORD.total && clipped.fields.length > 0) clipped.fields.pop();
  if (size() > DISCORD.total) clipped.description = clip(clipped.description, DISCORD.description / 2);
  return clipped;
}
