// Control keys of a pod in an Ordinal StatefulSet (issue 35, G5): refused where they would reach
// every pod, with the apiserver's field errors; apps/v1 sets and claim templates are not concerned.
import { describe, expect, it } from "vitest";
import { INPLACE_STATE_ANNOTATION, LIFECYCLE_STATE_LABEL, PULLER_LABEL, SPECIFIED_DELETE_LABEL } from "../../src/objects/constants.ts";
import { validateStatefulSet } from "../../src/validation/index.ts";
import { messages, pairs, validSet, with_ } from "./helpers.ts";

const ours = { group: "apps.ordinal.dev" } as const;

describe("validateStatefulSet: control keys", () => {
  it("refuses the chosen-deletion label in the template, saying to label the pod instead", () => {
    const set = with_(validSet, (o) => (o.spec.template.metadata.labels[SPECIFIED_DELETE_LABEL] = "true"));
    const { errors } = validateStatefulSet(set, undefined, ours);
    expect(messages(errors)).toEqual([
      `spec.template.metadata.labels[${SPECIFIED_DELETE_LABEL}]: Forbidden: chooses one pod for deletion: label that pod (kubectl label pod <set>-<ordinal> ${SPECIFIED_DELETE_LABEL}=true), never the pod template, which would make every pod delete itself and be made again, forever`,
    ]);
  });

  it("refuses every control label and annotation in the template, and in a hook's labelsHandler, at once", () => {
    const set = with_(validSet, (o) => {
      Object.assign(o.spec.template.metadata.labels, { [LIFECYCLE_STATE_LABEL]: "Normal", [PULLER_LABEL]: "true", "example.io/fine": "yes" });
      o.spec.template.metadata.annotations = { [INPLACE_STATE_ANNOTATION]: "{}", "ordinal.dev/unknown": "kept" };
      o.spec.lifecycle = { preDelete: { labelsHandler: { [SPECIFIED_DELETE_LABEL]: "true" } }, inPlaceUpdate: { labelsHandler: { "ordinal.dev/statefulset": "web" } } };
    });
    const { errors } = validateStatefulSet(set, undefined, ours);
    expect(pairs(errors)).toEqual([
      [`spec.template.metadata.labels[${LIFECYCLE_STATE_LABEL}]`, "FieldValueForbidden"],
      [`spec.template.metadata.labels[${PULLER_LABEL}]`, "FieldValueForbidden"],
      [`spec.template.metadata.annotations[${INPLACE_STATE_ANNOTATION}]`, "FieldValueForbidden"],
      [`spec.lifecycle.preDelete.labelsHandler[${SPECIFIED_DELETE_LABEL}]`, "FieldValueForbidden"],
      ["spec.lifecycle.inPlaceUpdate.labelsHandler[ordinal.dev/statefulset]", "FieldValueForbidden"],
    ]);
    expect(messages(errors)[0]).toContain("is a control key Ordinal's reconciler writes and reads on each pod: the pod template may not carry it");
  });

  it("accepts the set-name label with the set's own name, refuses another set's", () => {
    const own = with_(validSet, (o) => (o.spec.template.metadata.labels["ordinal.dev/statefulset"] = "web"));
    expect(validateStatefulSet(own, undefined, ours).errors).toEqual([]);
    const other = with_(validSet, (o) => {
      o.spec.template.metadata.labels["ordinal.dev/statefulset"] = "db";
    });
    expect(messages(validateStatefulSet(other, undefined, ours).errors)).toEqual([
      'spec.template.metadata.labels[ordinal.dev/statefulset]: Invalid value: "db": must be this set\'s name "web" or left out: Ordinal writes it on every pod of the set',
    ]);
  });

  it("refuses on update too (a stored set must drop the key with the change), and never for apps/v1 sets or claim templates", () => {
    const bad = with_(validSet, (o) => (o.spec.template.metadata.labels[SPECIFIED_DELETE_LABEL] = "true"));
    const stored = with_(validSet, (o) => (o.metadata.resourceVersion = "1"));
    expect(pairs(validateStatefulSet(with_(() => structuredClone(bad), (o) => (o.metadata.resourceVersion = "1")), stored, ours).errors)).toEqual([
      [`spec.template.metadata.labels[${SPECIFIED_DELETE_LABEL}]`, "FieldValueForbidden"],
    ]);
    const apps = with_(() => structuredClone(bad), (o) => (o.apiVersion = "apps/v1"));
    expect(validateStatefulSet(apps, undefined, { group: "apps" }).errors).toEqual([]);
    const claim = with_(validSet, (o) => (o.spec.volumeClaimTemplates[0].metadata.labels = { [SPECIFIED_DELETE_LABEL]: "true" }));
    expect(validateStatefulSet(claim, undefined, ours).errors).toEqual([]);
  });
});
