import Stripe from "stripe";
import request from "supertest";
import { app } from "../src/app";
import fixture from "./fixtures/checkout.session.completed.json";

const stripe = new Stripe("sk_test_placeholder_000000000000000000");
const secret = "whsec_test_0000000000000000000000000000";

it("rejects bad signatures", async () => {
  await request(app).post("/webhooks/stripe").set("stripe-signature", "t=1,v1=bad")
    .send(fixture).expect(400);
});

it("accepts signed events", async () => {
  const payload = JSON.stringify(fixture);
  const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
  await request(app).post("/webhooks/stripe").set("stripe-signature", header)
    .set("content-type", "application/json").send(payload).expect(200);
});
