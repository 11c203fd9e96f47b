CREATE TABLE "instance_audit" (
	"id" serial PRIMARY KEY NOT NULL,
	"timestamp" text NOT NULL,
	"actor" text NOT NULL,
	"actor_type" text NOT NULL,
	"action" text NOT NULL,
	"resource_type" text NOT NULL,
	"resource_key" text NOT NULL,
	"details" jsonb,
	"ip" text
);
--> statement-breakpoint
CREATE TABLE "invitations" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"email" text NOT NULL,
	"instance_role" text NOT NULL,
	"projects" jsonb NOT NULL,
	"created_by" text NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"accepted_at" text,
	CONSTRAINT "invitations_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "login_failures" (
	"key" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"blocked_until" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "memberships" (
	"project_id" text NOT NULL,
	"user_id" text NOT NULL,
	"role" text NOT NULL,
	"environments" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"via" text DEFAULT 'project' NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "memberships_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "oidc_states" (
	"id" text PRIMARY KEY NOT NULL,
	"data" jsonb NOT NULL,
	"expires_at" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "password_resets" (
	"hash" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"created_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"used_at" text
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"hash" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" text NOT NULL,
	"last_seen_at" text NOT NULL,
	"expires_at" text NOT NULL,
	"ip" text,
	"user_agent" text,
	CONSTRAINT "sessions_hash_unique" UNIQUE("hash")
);
--> statement-breakpoint
CREATE TABLE "user_identities" (
	"issuer" text NOT NULL,
	"subject" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" text NOT NULL,
	CONSTRAINT "user_identities_issuer_subject_pk" PRIMARY KEY("issuer","subject")
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" text PRIMARY KEY NOT NULL,
	"email" text NOT NULL,
	"name" text NOT NULL,
	"instance_role" text NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"password_hash" text,
	"totp_secret" text,
	"totp_pending" text,
	"totp_last_step" integer,
	"recovery_codes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sso" boolean DEFAULT false NOT NULL,
	"created_at" text NOT NULL,
	"updated_at" text NOT NULL,
	"last_login_at" text,
	CONSTRAINT "users_email_unique" UNIQUE("email")
);
--> statement-breakpoint
ALTER TABLE "audit" ADD COLUMN "actor_type" text;--> statement-breakpoint
ALTER TABLE "audit" ADD COLUMN "credential" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "owner_user_id" text;--> statement-breakpoint
ALTER TABLE "tokens" ADD COLUMN "environments" jsonb;--> statement-breakpoint
CREATE INDEX "instance_audit_ts_idx" ON "instance_audit" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "memberships_user_idx" ON "memberships" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "sessions_user_idx" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "user_identities_user_idx" ON "user_identities" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "tokens_owner_idx" ON "tokens" USING btree ("owner_user_id");