import { describe, expect, it } from "vitest";
import { serverFilePatchUrl, serverFileUrl } from "../src/server-file.js";

const ID = "0193b1c4-5f7e-7a1b-9c2d-3e4f5a6b7c8d";

describe("serverFileUrl and serverFilePatchUrl", () => {
  it.each([
    {
      url: serverFileUrl("https://modpacks.example.com", ID, { version: "42x" }),
      expected: `https://modpacks.example.com/modpacks/${ID}/server-file?version=42x`,
    },
    {
      url: serverFileUrl("https://modpacks.example.com///", ID, { version: "41x", format: "env" }),
      expected: `https://modpacks.example.com/modpacks/${ID}/server-file?version=41x&format=env`,
    },
    {
      url: serverFileUrl("http://127.0.0.1:3000/api/", "../admin?x=1", { version: "41x", format: "json" }),
      expected: "http://127.0.0.1:3000/api/modpacks/..%2Fadmin%3Fx%3D1/server-file?version=41x&format=json",
    },
    {
      url: serverFilePatchUrl("https://modpacks.example.com", ID, { version: "42x" }),
      expected: `https://modpacks.example.com/modpacks/${ID}/server-file/patch?version=42x`,
    },
    {
      url: serverFilePatchUrl("https://modpacks.example.com/", ID, { version: "41x", format: "json" }),
      expected: `https://modpacks.example.com/modpacks/${ID}/server-file/patch?version=41x&format=json`,
    },
  ])("$expected", ({ url, expected }) => {
    expect(url).toBe(expected);
  });
});
