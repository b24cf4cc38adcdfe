import { describe, expect, it } from "vitest";
import { API_TOKEN_PREFIX, generateSecret, hashSecret, issueApiToken, sameSecret } from "./secrets.js";

describe("hashSecret", () => {
  // SHA-256 of the UTF-8 bytes, hex: FIPS 180-2's examples, and strings hashed by Python's hashlib.
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      "mcs_abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst",
      "9e14d8105f72f28e44d0025e59829bfb190986ebbb52c06a5cb8ab5085bfc129",
    ],
    ["Zomboid ☣ Knox Événement 🧟", "aa875686fafea32fd8ab542a45a783fc8d2551daaebb841ff007a07de6b00554"],
  ])("hashes %j as the stored hashes were written", (secret, expected) => {
    expect(hashSecret(secret)).toBe(expected);
  });
});

describe("generated secrets", () => {
  it("are 256 random bits in lowercase base32; an API token is prefixed and issued with its hash", () => {
    const secrets = new Set(Array.from({ length: 200 }, () => generateSecret()));
    expect(secrets.size).toBe(200);
    for (const secret of secrets) expect(secret).toMatch(/^[a-z2-7]{52}$/);
    const { token, tokenHash } = issueApiToken();
    expect(token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    expect(token.slice(API_TOKEN_PREFIX.length)).toMatch(/^[a-z2-7]{52}$/);
    expect(tokenHash).toBe(hashSecret(token));
  });

  it.each([
    ["abc", "abc", true],
    ["abc", "abd", false],
    ["abc", "abcd", false],
    ["", "", true],
  ])("sameSecret(%j, %j) is %s", (a, b, same) => {
    expect(sameSecret(a, b)).toBe(same);
    expect(sameSecret(new TextEncoder().encode(a), b)).toBe(same);
  });
});
