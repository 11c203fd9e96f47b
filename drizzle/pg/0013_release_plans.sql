CREATE TABLE "release_plans" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"environment" text NOT NULL,
	"state" text NOT NULL,
	"current_step" integer NOT NULL,
	"phase" integer NOT NULL,
	"step_started_at" text,
	"body" jsonb NOT NULL,
	"status" jsonb NOT NULL,
	"pending_change_request" text,
	"claimed_by" text,
	"claimed_until" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "release_plans_flag_idx" ON "release_plans" USING btree ("project_id","flag_key","environment","state");--> statement-breakpoint
CREATE INDEX "release_plans_state_idx" ON "release_plans" USING btree ("state");