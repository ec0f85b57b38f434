package io.berthsched.berth.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The quantity table all four clients share: clients/testdata/quantities.json. */
class QuantityTest {
  private static JsonObject table() throws IOException {
    Path p = Path.of(System.getProperty("berth.testdata", "../testdata"), "quantities.json");
    return JsonParser.parseString(Files.readString(p, StandardCharsets.UTF_8)).getAsJsonObject();
  }

  @TestFactory
  Stream<DynamicTest> parse() throws IOException {
    JsonObject t = table();
    JsonObject errors = t.getAsJsonObject("errors");
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonElement e : t.getAsJsonArray("parse")) {
      JsonObject c = e.getAsJsonObject();
      String resource = c.get("resource").getAsString();
      String quantity = c.get("quantity").getAsString();
      tests.add(DynamicTest.dynamicTest(resource + " " + quantity, () -> {
        if (c.has("error")) {
          Quantity.QuantityException ex = assertThrows(Quantity.QuantityException.class,
              () -> Quantity.parse(resource, quantity));
          String want = "quantity " + new com.google.gson.GsonBuilder().disableHtmlEscaping().create().toJson(quantity) + " of " + resource
              + ": " + errors.get(c.get("error").getAsString()).getAsString();
          assertEquals(want, ex.getMessage());
        } else {
          assertEquals(Long.parseLong(c.get("want").getAsString()), Quantity.parse(resource, quantity));
        }
      }));
    }
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> format() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonElement e : table().getAsJsonArray("format")) {
      JsonObject c = e.getAsJsonObject();
      String resource = c.get("resource").getAsString();
      long value = Long.parseLong(c.get("value").getAsString());
      String want = c.get("want").getAsString();
      tests.add(DynamicTest.dynamicTest(resource + " " + value, () -> {
        assertEquals(want, Quantity.format(resource, value));
        assertEquals(value, Quantity.parse(resource, want), "the format parses back");
      }));
    }
    return tests.stream();
  }

  @Test
  void parseResourcesNamesTheResourceInErrors() {
    Map<String, String> in = new LinkedHashMap<>();
    in.put("cpu", "250m");
    in.put("memory", "1Gi");
    assertEquals(Map.of("cpu", 250L, "memory", 1L << 30), Quantity.parseResources(in));
    in.put("example.com/gpu", "x");
    Quantity.QuantityException ex = assertThrows(Quantity.QuantityException.class,
        () -> Quantity.parseResources(in));
    assertEquals("quantity \"x\" of example.com/gpu: " + Quantity.INVALID, ex.getMessage());
  }
}
