"""berth_client.quantity against clients/testdata/quantities.json, the table
the Go and TypeScript clients' tests read too."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from berth_client.quantity import QuantityError, format_quantity, parse_quantity, parse_resources  # noqa: E402

TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "quantities.json")


class QuantityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(TABLE) as f:
            cls.table = json.load(f)

    def test_parse(self):
        self.assertTrue(self.table["parse"])
        for tc in self.table["parse"]:
            with self.subTest(resource=tc["resource"], quantity=tc["quantity"]):
                if "error" in tc:
                    want = "quantity %s of %s: %s" % (json.dumps(tc["quantity"]), tc["resource"],
                                                      self.table["errors"][tc["error"]])
                    with self.assertRaises(QuantityError) as ctx:
                        parse_quantity(tc["resource"], tc["quantity"])
                    self.assertEqual(str(ctx.exception), want)
                else:
                    self.assertEqual(parse_quantity(tc["resource"], tc["quantity"]), int(tc["want"]))

    def test_format(self):
        self.assertTrue(self.table["format"])
        for tc in self.table["format"]:
            with self.subTest(resource=tc["resource"], value=tc["value"]):
                self.assertEqual(format_quantity(tc["resource"], int(tc["value"])), tc["want"])
                self.assertEqual(parse_quantity(tc["resource"], tc["want"]), int(tc["value"]))

    def test_parse_resources(self):
        self.assertEqual(parse_resources({"cpu": "250m", "memory": "1Gi", "pods": "110"}),
                         {"cpu": 250, "memory": 1 << 30, "pods": 110})
        with self.assertRaisesRegex(QuantityError, '^quantity "1GB" of memory: want a number'):
            parse_resources({"cpu": "1", "memory": "1GB"})


if __name__ == "__main__":
    unittest.main()
