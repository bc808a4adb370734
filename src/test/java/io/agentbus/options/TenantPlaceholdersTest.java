package io.agentbus.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantPlaceholdersTest {

  private static final Map<String, String> ACME = Map.of("TOKEN", "acme-secret");

  @Test
  void expandsTheTenantIdAndItsSecrets() {
    assertEquals("user-acme:acme-secret", TenantPlaceholders.expand("user-${tenant.id}:${tenant.secret.TOKEN}", "acme",
      ACME::get, "env.X"));
    assertEquals("Bearer $1 \\ acme-secret", TenantPlaceholders.expand("Bearer $1 \\ ${tenant.secret.TOKEN}", "acme",
      ACME::get, "headers.Authorization"));
    assertEquals("plain ${HOME}", TenantPlaceholders.expand("plain ${HOME}", "acme", ACME::get, "env.X"));
  }

  @Test
  void aMissingSecretOrTenantIsAnErrorThatNamesNoValue() {
    TenantPlaceholders.Missing e = assertThrows(TenantPlaceholders.Missing.class,
      () -> TenantPlaceholders.expand("${tenant.secret.OTHER}", "acme", ACME::get, "server 'gh': env.GH"));
    assertEquals("tenant 'acme' has no secret 'OTHER' (tenants.acme.secrets in the agent config), which server 'gh': env.GH uses",
      e.getMessage());
    TenantPlaceholders.Missing none = assertThrows(TenantPlaceholders.Missing.class,
      () -> TenantPlaceholders.expand("${tenant.id}", null, ACME::get, "env.WHO"));
    assertTrue(none.getMessage().contains("names no tenant"), none.getMessage());
    assertFalse(none.getMessage().contains("acme-secret"));
  }

  @Test
  void checkRejectsUnknownAndUnclosedPlaceholders() {
    TenantPlaceholders.check("${tenant.id}-${tenant.secret.GITHUB_TOKEN}", "env.X");
    ConfigException unknown = assertThrows(ConfigException.class, () -> TenantPlaceholders.check("${tenant.name}", "server 'x': field 'env.A'"));
    assertEquals("server 'x': field 'env.A': unknown placeholder '${tenant.name}' (use ${tenant.id} or ${tenant.secret.NAME})",
      unknown.getMessage());
    assertThrows(ConfigException.class, () -> TenantPlaceholders.check("${tenant.secret.}", "env.A"));
    assertThrows(ConfigException.class, () -> TenantPlaceholders.check("${tenant.secret.A-B}", "env.A"));
    assertThrows(ConfigException.class, () -> TenantPlaceholders.check("${tenant.id", "env.A"));
  }

  @Test
  void blankRemovesEveryTenantPlaceholder() {
    assertEquals("user-:", TenantPlaceholders.blank("user-${tenant.id}:${tenant.secret.TOKEN}"));
    assertEquals("same", TenantPlaceholders.blank("same"));
  }

  @Test
  void theEnvironmentExpanderLeavesTenantPlaceholdersAlone() {
    EnvExpander env = EnvExpander.of(Map.of("HOME", "/home/x"));
    assertEquals("/home/x ${tenant.id} ${tenant.secret.T}", env.expand("${HOME} ${tenant.id} ${tenant.secret.T}", "env.X"));
  }
}
