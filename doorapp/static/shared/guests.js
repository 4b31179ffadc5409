// A guest looked up on the platform and known to Door from then on (POST /guests/): the one Door knows
// already is used as it is (a `guest_exists` refusal carries it).
import { api } from "../core/api.js";

export async function findOrAddGuest(username) {
  try {
    return await api.post("/guests/", { username });
  } catch (error) {
    if (error.code !== "guest_exists") throw error;
    return error.guest;
  }
}
