import { CamelCasePlugin, type UnknownRow } from "kysely";

/** An object a JSON column holds (not a Date, a Buffer or an array), whose keys are mapped too. */
function isJsonObject(value: unknown): value is UnknownRow {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Kysely's `CamelCasePlugin` with a leaner result mapping: the same keys, and the keys of JSON
 * objects (and of objects in arrays) mapped as the plugin maps them, in one pass over each row; an
 * array of text or numbers is passed on as pg parsed it instead of copied. A catalogue row holds six
 * arrays, so a page of 50 mods copied 300 of them per request.
 */
export class RowCamelCasePlugin extends CamelCasePlugin {
  protected override mapRow(row: UnknownRow): UnknownRow {
    if (this.opt.maintainNestedObjectKeys) return super.mapRow(row);
    const mapped: UnknownRow = {};
    for (const key of Object.keys(row)) {
      let value = row[key];
      if (Array.isArray(value)) {
        if (value.some(isJsonObject)) value = value.map((item) => (isJsonObject(item) ? this.mapRow(item) : item));
      } else if (isJsonObject(value)) {
        value = this.mapRow(value);
      }
      mapped[this.camelCase(key)] = value;
    }
    return mapped;
  }
}
