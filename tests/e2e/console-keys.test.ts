// End-to-end in Chromium: environment keys and client keys in the console. The token form offers an
// environment key (production by default for a read token) beside "any environment", a client key is always
// bound to one, and the list shows each key's environment; a flag's and a config's "Available to client
// keys" switch is saved, and what a client key then sees follows it.
import { beforeAll, expect, test } from 'bun:test'
import type { Page } from 'playwright-core'
import { browserSuite } from '../helpers/browser'
import { api, type TestServer } from '../helpers/server'
import { consoleSession, TIMEOUT } from './fixtures/console-session'

browserSuite('console: environment and client keys', () => {
  const { session, problems, signIn, go, shot } = consoleSession()
  let srv: TestServer
  let page: Page
  const tokenNamed = async (name: string) =>
    (await api(srv, 'GET', '/api/v1/tokens', { token: srv.adminToken })).body.tokens.find((t: { name: string }) => t.name === name)

  beforeAll(async () => {
    ;({ srv, page } = session)
    for (const [path, body] of [
      ['/api/v1/flags', { key: 'banner', enabled: true, value: 'on' }],
      ['/api/v1/configs', { key: 'theme', value: 'light' }],
    ] as const)
      expect((await api(srv, 'POST', path, { token: srv.adminToken, body })).status).toBe(201)
    await signIn(page, srv.adminToken)
  }, TIMEOUT)

  test(
    'a new read token is a production key by default; "any environment" is one click away',
    async () => {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tokens' }).click()
      await page.getByRole('heading', { name: 'Access tokens' }).waitFor()
      expect(await page.getByRole('radio', { name: /Environment key/ }).isChecked()).toBe(true)
      expect(await page.getByLabel('Environment of the key').inputValue()).toBe('production')
      await page.getByLabel('Name', { exact: true }).fill('web prod')
      await page.getByRole('button', { name: 'Create token' }).click()
      await page.getByRole('textbox', { name: 'New token' }).waitFor()
      expect(await tokenNamed('web prod')).toMatchObject({ environment: 'production', permissions: ['read:flags'] })
      await page
        .getByRole('row', { name: /web prod/ })
        .getByRole('cell', { name: 'production', exact: true })
        .waitFor()
      await page.getByRole('button', { name: 'Done, I saved it' }).click()

      await page.getByLabel('Name', { exact: true }).fill('server any')
      await page.getByRole('radio', { name: /Any environment/ }).check()
      await page.getByRole('button', { name: 'Create token' }).click()
      await page.getByRole('textbox', { name: 'New token' }).waitFor()
      expect((await tokenNamed('server any')).environment).toBeUndefined()
      await page
        .getByRole('row', { name: /server any/ })
        .getByRole('cell', { name: 'any', exact: true })
        .waitFor()
      await page.getByRole('button', { name: 'Done, I saved it' }).click()
    },
    TIMEOUT,
  )

  test(
    'a client key is bound to the environment picked',
    async () => {
      await page.getByLabel('Name', { exact: true }).fill('browser staging')
      await page.getByRole('checkbox', { name: /client/ }).check()
      expect(await page.getByRole('radio', { name: /Any environment/ }).isDisabled()).toBe(true)
      await page.getByLabel('Environment of the key').selectOption('staging')
      await page.getByRole('button', { name: 'Create token' }).click()
      await page.getByRole('textbox', { name: 'New token' }).waitFor()
      expect(await tokenNamed('browser staging')).toMatchObject({ environment: 'staging', permissions: ['client'] })
      await shot(page, 'tokens-keys-1280')
    },
    TIMEOUT,
  )

  test(
    '"Available to client keys" on a flag and a config is saved, and client keys follow it',
    async () => {
      const key = (
        await api(srv, 'POST', '/api/v1/tokens', {
          token: srv.adminToken,
          body: { name: 'probe', project_id: 'default', permissions: ['client'], environment: 'production' },
        })
      ).body.token
      expect((await api(srv, 'GET', '/api/v1/flags/banner', { token: key })).status).toBe(404)
      await go(page, '/flags/banner')
      await page.getByRole('checkbox', { name: /Available to client keys/ }).check()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      expect((await api(srv, 'GET', '/api/v1/flags/banner/definition', { token: srv.adminToken })).body.flag.client_side).toBe(true)
      expect((await api(srv, 'GET', '/api/v1/flags/banner', { token: key })).body.value).toBe('on')

      await go(page, '/configs/theme')
      await page.getByRole('checkbox', { name: /Available to client keys/ }).check()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('All changes saved').waitFor()
      expect((await api(srv, 'GET', '/api/v1/configs/theme', { token: key })).body).toEqual({ value: 'light' })
      expect(problems).toEqual([])
    },
    TIMEOUT,
  )
})
