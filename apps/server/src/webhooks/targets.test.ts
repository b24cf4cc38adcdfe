import { describe, expect, it } from "vitest";
import { isDiscordWebhook, isPublicAddress, maskUrl, refuseTarget } from "./targets.js";

describe("isPublicAddress", () => {
  it.each([
    ["93.184.215.14", true],
    ["8.8.8.8", true],
    ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", true],
    ["127.0.0.1", false],
    ["127.255.255.254", false],
    ["10.1.2.3", false],
    ["172.31.255.255", false],
    ["192.168.1.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["100.127.255.255", false],
    ["0.0.0.0", false],
    ["224.0.0.251", false],
    ["255.255.255.255", false],
    ["192.0.2.1", false],
    ["198.18.0.1", false],
    ["::1", false],
    ["::", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:7f00:1", false],
    ["::ffff:93.184.215.14", true],
    ["[::1]", false],
    ["fe80::1", false],
    ["fc00::1", false],
    ["fd00:ec2::254", false],
    ["ff02::1", false],
    ["2002:7f00:1::", false],
    ["64:ff9b::7f00:1", false],
    ["2001:db8::1", false],
    ["not an address", false],
    ["", false],
  ])("%s → %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe("refuseTarget", () => {
  const resolve = async (name: string) => {
    const table: Record<string, string[]> = { "public.test": ["93.184.215.14"], "private.test": ["10.0.0.1"] };
    const found = table[name];
    if (!found) throw new Error("ENOTFOUND");
    return found;
  };
  it.each([
    ["https://public.test/hook", false, null],
    ["https://private.test/hook", false, "The webhook URL resolves to a private or reserved address"],
    ["https://nowhere.test/hook", false, "The webhook URL's host name does not resolve"],
    ["http://public.test/hook", false, "The webhook URL must use https"],
    ["https://127.1/", false, "The webhook URL points to a private or reserved address"],
    ["https://0x7f000001/", false, "The webhook URL points to a private or reserved address"],
    ["http://127.0.0.1:9999/", true, null],
    ["http://private.test/", true, null],
  ])("%s (private allowed: %s) → %s", async (url, allowPrivate, expected) => {
    expect(await refuseTarget(url, { allowPrivate, resolve })).toBe(expected);
  });
});

describe("Discord webhook URLs", () => {
  it.each([
    ["https://discord.com/api/webhooks/123/abc-DEF_1", true, "https://discord.com/api/webhooks/123/****"],
    ["https://discordapp.com/api/webhooks/123/abc?wait=true", true, "https://discordapp.com/api/webhooks/123/****"],
    ["https://ptb.discord.com/api/v10/webhooks/123/abc", true, "https://ptb.discord.com/api/webhooks/123/****"],
    ["https://discord.com/channels/123/456", false, "https://discord.com/channels/123/456"],
    ["https://discord.com.evil.example/api/webhooks/1/x", false, "https://discord.com.evil.example/api/webhooks/1/x"],
    ["https://hooks.example.com/api/webhooks/1/x", false, "https://hooks.example.com/api/webhooks/1/x"],
  ])("%s", (url, discord, masked) => {
    expect(isDiscordWebhook(url)).toBe(discord);
    expect(maskUrl(url)).toBe(masked);
  });
});
