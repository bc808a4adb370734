package io.agentbus.demo;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Built-in weather for a few cities, so the demo needs no network. */
final class WeatherTable {

  record Weather(String city, String condition, int celsius, int humidity, int windKmh) {
  }

  private static final Map<String, Weather> CITIES = new TreeMap<>();

  static {
    add("Paris", "light rain", 11, 82, 14);
    add("London", "overcast", 9, 78, 19);
    add("Berlin", "cloudy", 6, 71, 12);
    add("Madrid", "sunny", 17, 40, 8);
    add("Rome", "partly cloudy", 15, 60, 10);
    add("New York", "clear", 8, 55, 16);
    add("San Francisco", "fog", 13, 88, 22);
    add("Tokyo", "sunny", 14, 48, 9);
    add("Sydney", "thunderstorms", 24, 74, 27);
    add("Cairo", "sunny", 23, 35, 11);
    add("Mumbai", "humid and hazy", 31, 70, 13);
    add("Sao Paulo", "showers", 22, 80, 10);
    add("Toronto", "snow flurries", -2, 66, 20);
    add("Zurich", "cloudy", 5, 75, 7);
  }

  private static void add(String city, String condition, int celsius, int humidity, int wind) {
    CITIES.put(city.toLowerCase(Locale.ROOT), new Weather(city, condition, celsius, humidity, wind));
  }

  private WeatherTable() {
  }

  static Weather lookup(String city) {
    return city == null ? null : CITIES.get(city.strip().toLowerCase(Locale.ROOT));
  }

  static String knownCities() {
    return String.join(", ", CITIES.values().stream().map(Weather::city).toList());
  }
}
