ALTER TABLE `webhooks` ADD `consecutive_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `failing_since` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `retry_at` text;--> statement-breakpoint
ALTER TABLE `webhooks` ADD `paused_at` text;