CREATE TABLE IF NOT EXISTS txoutbox_sbt_init_marker (id int);
