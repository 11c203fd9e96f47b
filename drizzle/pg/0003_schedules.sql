CREATE TABLE "schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"at" text NOT NULL,
	"change" jsonb NOT NULL,
	"note" text,
	"status" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"finished_at" text,
	"cancelled_by" text,
	"result_version" integer,
	"error_code" text,
	"error" text
);
--> statement-breakpoint
CREATE INDEX "schedules_due_idx" ON "schedules" USING btree ("status","at");--> statement-breakpoint
CREATE INDEX "schedules_flag_idx" ON "schedules" USING btree ("project_id","flag_key");