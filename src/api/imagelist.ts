import * as z from "zod/mini";
import { conditionSchema, int32, integer, objectMeta } from "./schema-meta.ts";
import { described } from "./zod.ts";

/**
 * `apps.ordinal.dev/v1` ImageList: the images one node should have, for the pods of one namespace.
 * Its name is the node's name; it lives in the namespace of the pods that need the images, and so
 * do the short-lived puller pods that make it so (src/prewarm/). `spec.images` maps an image
 * reference to its pull options; people may write entries, and Ordinal's rollouts add (and later
 * remove) their own (recorded in the `ordinal.dev/prewarm-added` annotation). The status reports,
 * per image, where pulling stands.
 */
const IMAGELIST_KIND = "ImageList";

const ImagePullPhase = z.enum(["Pending", "Pulling", "Pulled", "Failed"]);

const ImageOptionsSchema = described(
  z.object({
    alwaysPull: described(
      z._default(z.boolean(), false),
      "Pull even when the node already has the image (imagePullPolicy Always), and again every 24 hours.",
    ),
  }),
  "Pull options of one image.",
);

const ImagePullStatusSchema = described(
  z.object({
    phase: described(ImagePullPhase, "Pending (not started: waiting for a puller slot or a retry), Pulling (a puller pod runs), Pulled (the node has the image), Failed (the last pull failed; retried with exponential backoff)."),
    lastPullTime: described(z.optional(z.string()), "When the image was last seen pulled on the node (RFC 3339)."),
    attempts: described(z._default(int32().check(z.minimum(0)), 0), "Pull attempts (puller pods) since the image last was Pulled."),
    nextAttemptTime: described(z.optional(z.string()), "When the next pull starts: the retry of a failure, or the 24-hour re-pull of an alwaysPull image (RFC 3339)."),
    message: described(z.optional(z.string()), "The last pull's outcome, for people (the kubelet's reason and message on failure)."),
  }),
  "Pull state of one image on the node.",
);

/** At most this many pull secrets per ImageList (a puller pod names each). */
export const MAX_IMAGELIST_PULL_SECRETS = 16;

const ImageListSpecSchema = described(
  z.object({
    images: described(
      z.record(z.string(), ImageOptionsSchema),
      "Image reference (as in a pod spec: `nginx:1.25`, `registry.example.com/app@sha256:…`) → pull options. Each reference is validated; short names are normalized as a container runtime does (`nginx` is `docker.io/library/nginx:latest`).",
    ),
    imagePullSecrets: described(
      z.optional(
        z
          .array(described(z.object({ name: described(z.string().check(z.minLength(1), z.maxLength(253)), "Name of a Secret in the ImageList's namespace.") }), "A pull secret, as in a pod spec."))
          .check(z.maxLength(MAX_IMAGELIST_PULL_SECRETS)),
      ),
      `Secrets of this namespace the puller pods use to pull private images, as a pod's imagePullSecrets (at most ${MAX_IMAGELIST_PULL_SECRETS}). Entries Ordinal adds for a set's rollout also use that set's template's and ServiceAccount's pull secrets.`,
    ),
  }),
  "The images the node named by metadata.name should have.",
);

const ImageListStatusSchema = described(
  z.object({
    observedGeneration: described(z.optional(integer()), "The metadata.generation this status describes."),
    images: described(z.optional(z.record(z.string(), ImagePullStatusSchema)), "Per image reference of spec.images: its pull state."),
    desired: described(z.optional(integer()), "How many images spec.images lists (kubectl's IMAGES column)."),
    pulled: described(z.optional(integer()), "How many of them are Pulled."),
    failed: described(z.optional(integer()), "How many of them are Failed."),
    conditions: described(
      z.optional(z.array(conditionSchema("the ImageList"))),
      "NodeEligible: True when the node runs a pod of this namespace (puller pods go only there), False (reason NoPodOfNamespace) when it does not: nothing is pulled.",
    ),
  }),
  "Observed pull state, written by the reconciler.",
);

export const ImageListSchema = described(
  z.object({
    apiVersion: described(z._default(z.string(), "apps.ordinal.dev/v1"), "apps.ordinal.dev/v1"),
    kind: described(z._default(z.string(), IMAGELIST_KIND), "ImageList"),
    metadata: objectMeta(),
    spec: ImageListSpecSchema,
    status: z.optional(ImageListStatusSchema),
  }),
  "Images to pre-pull on one node (metadata.name is the node's name) before the pods of this namespace need them; pulled by short-lived puller pods, no privileged daemon.",
);

export type ImageList = z.output<typeof ImageListSchema>;
export type ImagePullStatus = z.output<typeof ImagePullStatusSchema>;
