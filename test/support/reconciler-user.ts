/**
 * reconcilerUserBindings returns the YAML that binds the shipped reconciler roles (deploy/rbac.yaml:
 * the ClusterRole and the install namespace's Role) to the plain user `ordinal-reconciler`, the
 * identity the e2e and benchmark clusters' test token carries; the bindings are named
 * `ordinal-reconciler-<suffix>-user` so runs of different suites do not overwrite each other's.
 */
export const reconcilerUserBindings = (suffix: string): string => `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: ordinal-reconciler-${suffix}-user}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ordinal-reconciler}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ordinal-reconciler}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ordinal-reconciler-${suffix}-user, namespace: ordinal-system}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ordinal-reconciler-own-namespace}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: ordinal-reconciler}]
`;
