CREATE TABLE `change_request_reviews` (
	`id` text PRIMARY KEY NOT NULL,
	`change_request_id` text NOT NULL,
	`reviewer_user_id` text NOT NULL,
	`decision` text NOT NULL,
	`revision` integer NOT NULL,
	`comment` text,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `change_request_reviews_request_idx` ON `change_request_reviews` (`change_request_id`,`at`);--> statement-breakpoint
CREATE TABLE `change_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`title` text NOT NULL,
	`description` text NOT NULL,
	`author_user_id` text,
	`author_name` text NOT NULL,
	`state` text NOT NULL,
	`revision` integer NOT NULL,
	`items` text NOT NULL,
	`apply_at` text,
	`applied_at` text,
	`applied_approvers` text,
	`error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `change_requests_project_idx` ON `change_requests` (`project_id`,`updated_at`);--> statement-breakpoint
CREATE INDEX `change_requests_due_idx` ON `change_requests` (`state`,`apply_at`);--> statement-breakpoint
CREATE TABLE `environment_policies` (
	`project_id` text NOT NULL,
	`environment` text NOT NULL,
	`protected` integer NOT NULL,
	`required_approvals` integer NOT NULL,
	`approver_role` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `environment`)
);
--> statement-breakpoint
ALTER TABLE `audit` ADD `details` text;