ALTER TABLE `tokens` ADD `created_by_user_id` text;--> statement-breakpoint
ALTER TABLE `change_requests` ADD `author_token_hash` text;--> statement-breakpoint
ALTER TABLE `environment_policies` ADD `allow_emergency_off` integer DEFAULT true NOT NULL;--> statement-breakpoint
-- Tokens made before take their creator from their creation's audit entry: a person (session or personal token) ...
UPDATE tokens SET created_by_user_id = (
  SELECT u.id FROM audit a JOIN users u ON u.email = a.actor
  WHERE a.project_id = tokens.project_id AND a.resource_type = 'token' AND a.action = 'create'
    AND a.resource_key = tokens.token_prefix AND a.actor_type = 'user' AND a.timestamp >= tokens.created_at
  ORDER BY a.id LIMIT 1
) WHERE created_by_user_id IS NULL;--> statement-breakpoint
-- ... or another token, whose creator it then shares (two levels deep); bootstrap and command-line tokens have none.
UPDATE tokens SET created_by_user_id = (
  SELECT c.created_by_user_id FROM audit a JOIN tokens c ON c.token_prefix = a.actor AND c.project_id = a.project_id
  WHERE a.project_id = tokens.project_id AND a.resource_type = 'token' AND a.action = 'create'
    AND a.resource_key = tokens.token_prefix AND a.timestamp >= tokens.created_at AND c.hash <> tokens.hash
  ORDER BY a.id LIMIT 1
) WHERE created_by_user_id IS NULL;--> statement-breakpoint
UPDATE tokens SET created_by_user_id = (
  SELECT c.created_by_user_id FROM audit a JOIN tokens c ON c.token_prefix = a.actor AND c.project_id = a.project_id
  WHERE a.project_id = tokens.project_id AND a.resource_type = 'token' AND a.action = 'create'
    AND a.resource_key = tokens.token_prefix AND a.timestamp >= tokens.created_at AND c.hash <> tokens.hash
  ORDER BY a.id LIMIT 1
) WHERE created_by_user_id IS NULL;
