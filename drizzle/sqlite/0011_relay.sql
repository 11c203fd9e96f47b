CREATE TABLE `relay_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`received_at` text NOT NULL
);
