// Tests of the JSON writer behind result records.
#include "bench/run/json_writer.h"

#include <cmath>

#include <gtest/gtest.h>

using ablate::bench::run::JsonWriter;

TEST(JsonWriter, NestedObjectsAndArraysHaveCommasInTheRightPlaces) {
  JsonWriter w;
  w.begin_object().field("a", 1).key("b").begin_array().value(1.5).value("x").end_array();
  w.key("c").begin_object().field("d", true).end_object().end_object();
  EXPECT_EQ(w.str(), R"({"a":1,"b":[1.5,"x"],"c":{"d":true}})");
}

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  JsonWriter w;
  w.begin_object().field("k\"", std::string("a\\b\n\x01")).end_object();
  EXPECT_EQ(w.str(), "{\"k\\\"\":\"a\\\\b\\n\\u0001\"}");
}

TEST(JsonWriter, NonFiniteNumbersBecomeNull) {
  JsonWriter w;
  w.begin_array().value(std::nan("")).value(INFINITY).value(2.0).end_array();
  EXPECT_EQ(w.str(), "[null,null,2]");
}
