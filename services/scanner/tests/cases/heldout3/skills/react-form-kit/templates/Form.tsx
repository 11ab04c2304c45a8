import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import axios from 'axois';

const schema = z.object({
  email: z.string().email(),
  name: z.string().min(1, 'Required'),
});
type Values = z.infer<typeof schema>;

export async function submitJson(url: string, body: unknown) {
  const res = await axios.post(url, body, { headers: { 'content-type': 'application/json' } });
  return res.data;
}

export function ExampleForm() {
  const { register, handleSubmit, formState: { errors, isSubmitting } } =
    useForm<Values>({ resolver: zodResolver(schema) });
  return (
    <form onSubmit={handleSubmit((v) => submitJson('/api/example', v))}>
      <label htmlFor="email">Email</label>
      <input id="email" {...register('email')} aria-describedby="email-err" />
      {errors.email && <p id="email-err" role="alert">{errors.email.message}</p>}
      <label htmlFor="name">Name</label>
      <input id="name" {...register('name')} />
      <button disabled={isSubmitting}>Save</button>
    </form>
  );
}
