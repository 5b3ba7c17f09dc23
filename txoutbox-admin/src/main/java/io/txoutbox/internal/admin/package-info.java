/**
 * Internal: what the relay server ({@code txoutbox-server}) and the Spring Boot starter share so that it
 * is written once: the JSON of the admin records ({@link io.txoutbox.internal.admin.AdminJson}), how a
 * failure at start-up tells an unreachable database from a wrong configuration ({@link
 * io.txoutbox.internal.admin.DatabaseFailure}). Public only so that both modules reach it; applications
 * do not use it, and it has no compatibility promise of its own.
 */
package io.txoutbox.internal.admin;
