CREATE TABLE "experiment_metrics" (
	"project_id" text NOT NULL,
	"key" text NOT NULL,
	"body" jsonb NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	CONSTRAINT "experiment_metrics_project_id_key_pk" PRIMARY KEY("project_id","key")
);
--> statement-breakpoint
CREATE TABLE "experiments" (
	"id" text PRIMARY KEY NOT NULL,
	"project_id" text NOT NULL,
	"key" text NOT NULL,
	"flag_key" text NOT NULL,
	"environment" text NOT NULL,
	"state" text NOT NULL,
	"phase" integer NOT NULL,
	"phases" jsonb NOT NULL,
	"body" jsonb NOT NULL,
	"decision" jsonb,
	"pending_change_request" text,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exposures" (
	"experiment_id" text NOT NULL,
	"phase" integer NOT NULL,
	"unit" text NOT NULL,
	"first_at" bigint NOT NULL,
	"variant" text NOT NULL,
	"multiple" boolean NOT NULL,
	CONSTRAINT "exposures_experiment_id_phase_unit_pk" PRIMARY KEY("experiment_id","phase","unit")
);
--> statement-breakpoint
CREATE TABLE "track_events" (
	"project_id" text NOT NULL,
	"key" text NOT NULL,
	"attribute" text NOT NULL,
	"unit" text NOT NULL,
	"environment" text NOT NULL,
	"at" bigint NOT NULL,
	"value" double precision NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "experiments_project_key_idx" ON "experiments" USING btree ("project_id","key");--> statement-breakpoint
CREATE INDEX "experiments_flag_idx" ON "experiments" USING btree ("project_id","flag_key","environment","state");--> statement-breakpoint
CREATE INDEX "track_events_unit_idx" ON "track_events" USING btree ("project_id","key","attribute","unit","at","environment","value");--> statement-breakpoint
CREATE INDEX "track_events_at_idx" ON "track_events" USING btree ("at");