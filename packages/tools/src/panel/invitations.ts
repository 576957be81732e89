import { IdSchema } from "@mnote/contract";
import { z } from "zod";

/**
 * The signed-in person's own invitations (issue 31): those addressed to their user's email. Only they see or decide
 * one; to anyone else an invitation does not exist (one "not found" for someone else's, a decided one, and none).
 */
export const InvitationDecideInput = z.object({ invitationId: IdSchema, accept: z.boolean() });
