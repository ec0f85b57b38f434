// The quantity helpers against clients/testdata/quantities.json, the table
// the Go and Python clients' tests read too.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";

import { formatQuantity, parseQuantity, parseQuantityBigInt, parseResources, QuantityError } from "../src/index.js";

interface Table {
  errors: Record<string, string>;
  parse: { resource: string; quantity: string; want?: string; error?: string }[];
  format: { resource: string; value: string; want: string }[];
}

// Tests run from dist/test: the table is four levels up from there.
const table: Table = JSON.parse(readFileSync(new URL("../../../testdata/quantities.json", import.meta.url), "utf8"));

describe("quantities", () => {
  test("parse", () => {
    assert.ok(table.parse.length > 0);
    for (const tc of table.parse) {
      const what = `parseQuantityBigInt(${tc.resource}, ${JSON.stringify(tc.quantity)})`;
      if (tc.error) {
        const want = `quantity ${JSON.stringify(tc.quantity)} of ${tc.resource}: ${table.errors[tc.error]}`;
        assert.throws(() => parseQuantityBigInt(tc.resource, tc.quantity), (e) => e instanceof QuantityError && e.message === want, what);
        continue;
      }
      const want = BigInt(tc.want!);
      assert.equal(parseQuantityBigInt(tc.resource, tc.quantity), want, what);
      // The number form agrees where a number holds the value exactly.
      if (want <= BigInt(Number.MAX_SAFE_INTEGER) && want >= BigInt(Number.MIN_SAFE_INTEGER)) {
        assert.equal(parseQuantity(tc.resource, tc.quantity), Number(want), what);
      } else {
        assert.throws(() => parseQuantity(tc.resource, tc.quantity), /: out of range$/, what);
      }
    }
  });

  test("format", () => {
    assert.ok(table.format.length > 0);
    for (const tc of table.format) {
      assert.equal(formatQuantity(tc.resource, BigInt(tc.value)), tc.want, `formatQuantity(${tc.resource}, ${tc.value})`);
      assert.equal(parseQuantityBigInt(tc.resource, tc.want), BigInt(tc.value), `parse back ${tc.want}`);
    }
  });

  test("parseResources", () => {
    assert.deepEqual(parseResources({ cpu: "250m", memory: "1Gi", pods: "110" }), { cpu: 250, memory: 1 << 30, pods: 110 });
    assert.throws(() => parseResources({ cpu: "1", memory: "1GB" }), /^QuantityError: quantity "1GB" of memory: want a number/);
  });
});
