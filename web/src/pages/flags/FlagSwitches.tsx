// The flag list's on/off switches: each sends If-Match with the version its row shows, asks first where a
// switch reaches users or detaches an environment from the main switch, explains a refusal, and can undo.
import { useState } from 'react'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { ApiError, api, keys, type Flag } from '../../api'
import { lifecycleApi } from '../../lifecycle-api'
import { useApiMutation } from '../../mutations'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorMessage } from '../../components/ErrorMessage'
import { isProductionLike } from '../flag/serving'

interface Flip {
  flag: Flag
  enabled: boolean
  /** the environment whose override is switched; none: the flag itself */
  env?: string
}

const onOff = (on: boolean) => (on ? 'on' : 'off')

/** Sends what a switch asks for, at the version its row shows: the flag's own switch through the flag update,
 *  an environment's through PUT /flags/:key/environments/:env (keeping that override's value, if any). */
function send({ flag, enabled, env }: Flip) {
  if (env === undefined) return api.updateFlag(flag.key, { enabled }, flag.version)
  const o = flag.environments?.[env]
  return api.putFlagOverride(flag.key, env, o?.value !== undefined ? { enabled, value: o.value } : { enabled }, flag.version)
}

/** Why a switch was refused, in words, from the flag as the server has it now (null: deleted). */
function explainRefusal({ flag, enabled, env }: Flip, now: Flag | null): string {
  const wanted = env === undefined ? `switching it ${onOff(enabled)}` : `switching it ${onOff(enabled)} in ${env}`
  if (!now) return `Flag “${flag.key}” was deleted by someone else, so ${wanted} was not applied.`
  const o = env === undefined ? undefined : now.environments?.[env]
  const state =
    env === undefined
      ? `the flag is ${onOff(now.enabled)}`
      : `${env} is ${onOff(o ? o.enabled : now.enabled)}${o ? '' : ' (follows the flag)'}`
  return (
    `Flag “${flag.key}” was changed by someone else: it is at version ${now.version}, this list showed version ${flag.version}. ` +
    `${wanted[0].toUpperCase()}${wanted.slice(1)} was not applied; ${state} now. ` +
    `The row shows the current state: switch again if you still want the change.`
  )
}

/** Whether a switch asks first: an environment that reads as production, or one that follows the main switch
 *  (switching it gives it a switch of its own, which the main switch no longer reaches). */
function askFirst({ flag, env }: Flip): boolean {
  return env !== undefined && (isProductionLike(env) || !flag.environments?.[env])
}

/** Each switch sends If-Match with the version its row shows. On 409 (or 404) nothing is written: the notice
 *  says what happened and the list is read again, so the row shows the server's state. A switch that was
 *  applied can be undone (a rollback to the version before, if nobody changed the flag since). */
export function useFlagSwitches() {
  const qc = useQueryClient()
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set())
  const [refusal, setRefusal] = useState<string | null>(null)
  const [asking, setAsking] = useState<Flip | null>(null)
  const [done, setDone] = useState<Flip | null>(null)
  const mutation = useMutation({
    mutationFn: async (v: Flip): Promise<string | null> => {
      try {
        await send(v)
        return null
      } catch (e) {
        if (!(e instanceof ApiError) || !(e.isConflict || e.isNotFound)) throw e
        return explainRefusal(v, await api.flag(v.flag.key).catch(() => null))
      }
    },
    onMutate: (v) => {
      setRefusal(null)
      setDone(null)
      setBusy((b) => new Set(b).add(v.flag.key))
    },
    onSuccess: (why, v) => (why ? setRefusal(why) : setDone(v)),
    onSettled: async (_data, _error, v) => {
      setAsking(null)
      await Promise.all([keys.flags, keys.audit].map((queryKey) => qc.invalidateQueries({ queryKey })))
      setBusy((b) => new Set([...b].filter((k) => k !== v.flag.key)))
    },
  })
  const undo = useApiMutation(
    (v: Flip) => lifecycleApi.rollback({ key: v.flag.key, version: v.flag.version, current: v.flag.version + 1 }),
    [keys.flags],
    () => setDone(null),
  )
  const what = (v: Flip) => `${v.flag.key} ${onOff(v.enabled)}${v.env === undefined ? '' : ` in ${v.env}`}`
  return {
    flip: (flag: Flag, enabled: boolean, env?: string) => {
      const v = { flag, enabled, env }
      if (askFirst(v)) {
        mutation.reset()
        setAsking(v)
      } else mutation.mutate(v)
    },
    busy: (key: string) => busy.has(key),
    notice: (
      <>
        {refusal && (
          <div className="alert alert-warning" role="alert">
            <strong>Not switched.</strong> {refusal}{' '}
            <button type="button" className="btn-link" onClick={() => setRefusal(null)}>
              Dismiss
            </button>
          </div>
        )}
        {done && (
          <div className="alert alert-info" role="status">
            Switched {what(done)}.{' '}
            <button type="button" className="btn btn-small" disabled={undo.isPending} onClick={() => undo.mutate(done)}>
              Undo
            </button>{' '}
            <button type="button" className="btn-link" onClick={() => setDone(null)}>
              Dismiss
            </button>
          </div>
        )}
        <ErrorMessage error={undo.error} title="Could not undo (the flag was changed since? Its history can roll it back)" />
        <ErrorMessage error={mutation.error} title="Could not switch the flag" />
        {asking && (
          <ConfirmDialog
            title={`Switch ${what(asking)}?`}
            confirmLabel={`Switch ${onOff(asking.enabled)} in ${asking.env}`}
            danger={!asking.enabled}
            onConfirm={() => mutation.mutate(asking)}
            onCancel={() => setAsking(null)}
            pending={mutation.isPending}
          >
            {asking.env !== undefined && !asking.flag.environments?.[asking.env] && (
              <OwnSwitchNote env={asking.env} mainEnabled={asking.flag.enabled} enabled={asking.enabled} />
            )}
            {asking.env !== undefined && isProductionLike(asking.env) && (
              <p>{asking.env} serves your users: applications see the change within seconds. You can undo it right after.</p>
            )}
          </ConfirmDialog>
        )}
      </>
    ),
  }
}

export type FlagSwitches = ReturnType<typeof useFlagSwitches>

/** Switching an environment that follows the main switch gives it a switch of its own. */
function OwnSwitchNote({ env, mainEnabled, enabled }: { env: string; mainEnabled: boolean; enabled: boolean }) {
  return (
    <p>
      {env} follows the main switch ({onOff(mainEnabled)}) now. Switching gives {env} a switch of its own, {onOff(enabled)}: from then on
      the main switch no longer turns it on or off (Turn off everywhere, on the flag’s page, still does).
    </p>
  )
}
