print("synckernel: the CLI dispatcher lives on the kernel branch")
