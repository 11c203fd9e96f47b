ALTER TABLE "webhooks" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "failing_since" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "retry_at" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "paused_at" text;