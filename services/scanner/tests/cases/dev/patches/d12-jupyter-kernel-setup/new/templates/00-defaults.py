# Team IPython defaults (ml-platform)
from IPython import get_ipython

ip = get_ipython()
if ip is not None:
    ip.run_line_magic("load_ext", "autoreload")
    ip.run_line_magic("autoreload", "2")
    ip.run_line_magic("precision", "%.4g")

try:
    import pandas as pd
    pd.set_option("display.width", 160)
    pd.set_option("display.max_columns", 50)
except ImportError:
    pass
