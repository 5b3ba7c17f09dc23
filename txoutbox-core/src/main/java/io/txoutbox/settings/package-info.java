/**
 * Settings as data: each setting of the outbox, the relay and the transports is one {@link
 * io.txoutbox.settings.Setting} descriptor (name, type, default, rules, doc) declared beside the code that
 * uses it. The builders, the Spring starter and the relay server bind through the descriptors, refusals
 * name a setting in the caller's {@link io.txoutbox.settings.Spelling}, and the documentation's tables
 * ({@link io.txoutbox.settings.SettingsTable}) are generated from them.
 */
package io.txoutbox.settings;
