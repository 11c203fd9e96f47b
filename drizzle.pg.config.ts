import { defineConfig } from 'drizzle-kit'
export default defineConfig({ dialect: 'postgresql', schema: './server/store/schema.pg.ts', out: './drizzle/pg' })
