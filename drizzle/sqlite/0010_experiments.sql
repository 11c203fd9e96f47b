CREATE TABLE `experiment_metrics` (
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`body` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `key`)
);
--> statement-breakpoint
CREATE TABLE `experiments` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`flag_key` text NOT NULL,
	`environment` text NOT NULL,
	`state` text NOT NULL,
	`phase` integer NOT NULL,
	`phases` text NOT NULL,
	`body` text NOT NULL,
	`decision` text,
	`pending_change_request` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `experiments_project_key_idx` ON `experiments` (`project_id`,`key`);--> statement-breakpoint
CREATE INDEX `experiments_flag_idx` ON `experiments` (`project_id`,`flag_key`,`environment`,`state`);--> statement-breakpoint
CREATE TABLE `exposures` (
	`experiment_id` text NOT NULL,
	`phase` integer NOT NULL,
	`unit` text NOT NULL,
	`first_at` integer NOT NULL,
	`variant` text NOT NULL,
	`multiple` integer NOT NULL,
	PRIMARY KEY(`experiment_id`, `phase`, `unit`)
);
--> statement-breakpoint
CREATE TABLE `track_events` (
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`attribute` text NOT NULL,
	`unit` text NOT NULL,
	`environment` text NOT NULL,
	`at` integer NOT NULL,
	`value` real NOT NULL
);
--> statement-breakpoint
CREATE INDEX `track_events_unit_idx` ON `track_events` (`project_id`,`key`,`attribute`,`unit`,`at`,`environment`,`value`);--> statement-breakpoint
CREATE INDEX `track_events_at_idx` ON `track_events` (`at`);