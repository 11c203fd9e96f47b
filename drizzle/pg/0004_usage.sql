CREATE TABLE "flag_usage" (
	"project_id" text NOT NULL,
	"flag_key" text NOT NULL,
	"environment" text NOT NULL,
	"variant" text NOT NULL,
	"hour" text NOT NULL,
	"count" integer NOT NULL,
	"last_at" text NOT NULL,
	CONSTRAINT "flag_usage_project_id_flag_key_environment_variant_hour_pk" PRIMARY KEY("project_id","flag_key","environment","variant","hour")
);
--> statement-breakpoint
CREATE INDEX "flag_usage_project_hour_idx" ON "flag_usage" USING btree ("project_id","hour");