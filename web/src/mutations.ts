// Every write goes through useApiMutation: it refreshes the given reads (and the audit log) on success.
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query'
import { keys } from './api'

export function useApiMutation<V, R>(
  mutationFn: (vars: V) => Promise<R>,
  invalidate: readonly QueryKey[],
  onSuccess?: (data: R, vars: V) => void,
) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn,
    onSuccess: async (data, vars) => {
      await Promise.all([...invalidate, keys.audit].map((queryKey) => qc.invalidateQueries({ queryKey })))
      onSuccess?.(data, vars)
    },
  })
}
