/**
 * <b>Internal</b>: txoutbox's JDBC implementation: the store, one dialect per database, the schema, the
 * wake-ups and the inbox. Not an API: everything here is package-private but {@link
 * io.txoutbox.jdbc.JdbcBackend}, the door the API packages use, and any of it may change in any release.
 * Use {@code io.txoutbox} instead.
 */
package io.txoutbox.jdbc;
