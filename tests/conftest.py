def pytest_addoption(parser):
    parser.addoption("--jax-games", type=int, default=180,
                     help="random games in the JAX-vs-reference differential test (10000 for the full check)")
