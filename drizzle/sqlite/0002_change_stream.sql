CREATE TABLE `change_sequences` (
	`project_id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `changes` (
	`project_id` text NOT NULL,
	`seq` integer NOT NULL,
	`resource_type` text NOT NULL,
	`resource_key` text NOT NULL,
	`action` text NOT NULL,
	`version` integer,
	`environment` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `server_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`created_at` text NOT NULL
);
