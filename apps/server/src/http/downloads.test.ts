import { parse } from "content-disposition";
import { describe, expect, it } from "vitest";
import { attachmentHeader } from "./downloads.js";

describe("the server file's Content-Disposition", () => {
  it.each([
    [
      "Knox Country Survival",
      "knox-country-survival-41x.ini",
      "41x",
      "attachment; filename=knox-country-survival-41x.ini",
      undefined,
    ],
    ["Café Zomboïd", "cafe-zomboid-42x.ini", "42x", undefined, "Café Zomboïd-42x.ini"],
    ["Зомби апокалипсис", "modpack-41x.ini", "41x", undefined, "Зомби апокалипсис-41x.ini"],
    ["日本の/パック", "modpack-42x.ini", "42x", undefined, "日本の_パック-42x.ini"],
    ['Ünïcode "quoted" \\ back', "unicode-quoted-back-41x.ini", "41x", undefined, "Ünïcode _quoted_ _ back-41x.ini"],
  ] as const)("%s", (modpackName, fileName, version, exact, readable) => {
    const header = attachmentHeader({ modpackName, fileName, version });
    if (exact) expect(header).toBe(exact);
    const parsed = parse(header);
    expect(parsed.type).toBe("attachment");
    // Old clients read the ASCII slug; RFC 6266 clients read the modpack's own name.
    expect(parsed.parameters.filename ?? fileName).toBe(readable ?? fileName);
    if (readable) {
      expect(header).toMatch(new RegExp(`^attachment; filename=${fileName.replaceAll(".", "\\.")}; filename\\*=`));
      expect(header).toContain("filename*=UTF-8''");
    } else {
      expect(header).not.toContain("filename*");
    }
  });
});
