import { describe, it, expect, beforeEach, vi } from "vitest";
import request from "supertest";
import Stripe from "stripe";
import { app, fulfilment } from "../src/app";

const stripe = new Stripe(process.env.STRIPE_SECRET_KEY ?? "sk_test_FAKE_0000", { apiVersion: "2024-06-20" });
const secret = process.env.STRIPE_WEBHOOK_SECRET ?? "whsec_FAKE_not_a_real_secret_0000000000";

function signed(event: object) {
  const payload = JSON.stringify(event);
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
  return { payload, header };
}

const completed = {
  id: "evt_test_0001",
  type: "checkout.session.completed",
  data: { object: { id: "cs_test_0001", metadata: { orderId: "ord_42" } } },
};

describe("POST /webhooks/stripe", () => {
  beforeEach(() => vi.spyOn(fulfilment, "fulfil").mockResolvedValue(undefined));

  it("accepts a correctly signed event and fulfils once", async () => {
    const { payload, header } = signed(completed);
    await request(app).post("/webhooks/stripe").set("stripe-signature", header)
      .set("content-type", "application/json").send(payload).expect(200);
    expect(fulfilment.fulfil).toHaveBeenCalledTimes(1);
  });

  it("ignores a duplicate delivery", async () => {
    const { payload, header } = signed(completed);
    for (let i = 0; i < 2; i++) {
      await request(app).post("/webhooks/stripe").set("stripe-signature", header)
        .set("content-type", "application/json").send(payload).expect(200);
    }
    expect(fulfilment.fulfil).toHaveBeenCalledTimes(1);
  });

  it("rejects a tampered payload", async () => {
    const { header } = signed(completed);
    const tampered = JSON.stringify({ ...completed, id: "evt_test_9999" });
    await request(app).post("/webhooks/stripe").set("stripe-signature", header)
      .set("content-type", "application/json").send(tampered).expect(400);
  });

  it("acknowledges unknown event types", async () => {
    const { payload, header } = signed({ id: "evt_test_0002", type: "customer.created", data: { object: {} } });
    await request(app).post("/webhooks/stripe").set("stripe-signature", header)
      .set("content-type", "application/json").send(payload).expect(200);
  });
});
