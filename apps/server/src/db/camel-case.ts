import { CamelCasePlugin, type PluginTransformResultArgs, type QueryResult, type UnknownRow } from "kysely";
import { LRUCache } from "lru-cache";

/** An object a JSON column holds (not a Date, a Buffer or an array), whose keys are mapped too. */
function isJsonObject(value: unknown): value is UnknownRow {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Maps one row whose columns are the ones its mapper was made for. */
type RowMapper = (row: UnknownRow, mapValue: (value: object) => unknown) => UnknownRow;

/** Column lists seen so far (each a statement's shape, so bounded by the code), by their names. */
const SHAPES_KEPT = 2_000;

/**
 * Kysely's `CamelCasePlugin` with a leaner result mapping: the same keys, and the keys of JSON
 * objects (and of objects in arrays) mapped as the plugin maps them; an array of text or numbers is
 * passed on as pg parsed it instead of copied.
 *
 * Every row of one result has the same columns, so a result's rows are built by one function made
 * for that column list (and kept for the next result of the same shape): an object literal with
 * every key, which V8 allocates at its final size at once, instead of an object grown key by key
 * and the key list `Object.keys` copies for each row: less garbage for every row of every answer.
 */
export class RowCamelCasePlugin extends CamelCasePlugin {
  readonly #mappers = new LRUCache<string, RowMapper>({ max: SHAPES_KEPT });
  readonly #mapValue = (value: object): unknown => this.#mapNested(value);

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const { rows } = args.result;
    const first = rows?.[0];
    if (this.opt.maintainNestedObjectKeys || !Array.isArray(rows) || first === undefined) {
      return super.transformResult(args);
    }
    const mapper = this.#mapperFor(first);
    if (!mapper) return super.transformResult(args);
    const mapped = new Array<UnknownRow>(rows.length);
    for (let index = 0; index < rows.length; index++) mapped[index] = mapper(rows[index] as UnknownRow, this.#mapValue);
    return { ...args.result, rows: mapped };
  }

  protected override mapRow(row: UnknownRow): UnknownRow {
    if (this.opt.maintainNestedObjectKeys) return super.mapRow(row);
    const mapped: UnknownRow = {};
    for (const key of Object.keys(row)) mapped[this.camelCase(key)] = this.#mapNested(row[key]);
    return mapped;
  }

  /** A value in a row: a JSON object's keys mapped, an array's JSON objects mapped, anything else as it is. */
  #mapNested(value: unknown): unknown {
    if (Array.isArray(value)) {
      return value.some(isJsonObject) ? value.map((item) => (isJsonObject(item) ? this.mapRow(item) : item)) : value;
    }
    return isJsonObject(value) ? this.mapRow(value) : value;
  }

  /**
   * The mapper for rows with `row`'s columns, made once per column list. None (the key-by-key
   * mapping) for a column named `__proto__`, which `row.__proto__` would read as the prototype.
   * (No camel-cased key is `__proto__`: the mapping keeps only a leading underscore.)
   */
  #mapperFor(row: UnknownRow): RowMapper | undefined {
    const columns = Object.keys(row);
    const shape = columns.join("\u0000");
    let mapper = this.#mappers.get(shape);
    if (mapper) return mapper;
    if (columns.includes("__proto__")) return undefined;
    const keys = columns.map((column) => this.camelCase(column));
    const properties = columns.map(
      (column, index) =>
        `${JSON.stringify(keys[index])}: (value = row[${JSON.stringify(column)}], typeof value === "object" && value !== null ? mapValue(value) : value)`,
    );
    // The source holds only JSON-quoted column names: no text of the row's values reaches it.
    mapper = new Function("row", "mapValue", `let value; return {\n${properties.join(",\n")}\n};`) as RowMapper;
    this.#mappers.set(shape, mapper);
    return mapper;
  }
}
