# The Makefile rules every board folder shares; fw/<board>/Makefile sets BOARD, FLASH_PART and
# VIVADO_LICENCE (what licence the part needs, for the message without Vivado), then includes
# this file. Outputs go to build/fw/<board>/ at the top of the repository.
#   make            the bitstream and flash image, with timing and utilisation reports (Vivado)
#   make program    load the bitstream over JTAG
#   make flash      write the configuration flash over JTAG
#   make clean
ROOT    := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/../..)
OUT     := $(ROOT)/build/fw/$(BOARD)
VIVADO  ?= vivado
BIT     := $(OUT)/ndknic_$(BOARD).bit
MCS     := $(OUT)/ndknic_$(BOARD).mcs

.PHONY: all bitstream program flash clean vivado-check
all: bitstream

vivado-check:
	@if ! command -v $(VIVADO) >/dev/null 2>&1; then \
		echo "make -C fw/$(BOARD): AMD Vivado is needed to build this board image, and '$(VIVADO)' is not on PATH."; \
		echo "  Install Vivado ML Enterprise 2023.2 or later from AMD's download centre"; \
		echo "  (https://www.xilinx.com/support/download.html; $(VIVADO_LICENCE)),"; \
		echo "  then: source <install dir>/Vivado/<version>/settings64.sh && make -C fw/$(BOARD)"; \
		echo "  (or VIVADO=/path/to/vivado make -C fw/$(BOARD)); fw/$(BOARD)/README.md has the rest."; \
		echo "  Everything above the vendor's blocks is checked without Vivado by 'make test' and 'make lint'."; \
		exit 1; \
	fi

bitstream: vivado-check
	@mkdir -p $(OUT)
	cd $(OUT) && $(VIVADO) -mode batch -nojournal -log $(OUT)/vivado.log \
		-source $(ROOT)/fw/common/vivado.tcl -tclargs $(CURDIR) $(OUT)
	@echo "reports: $(OUT)/reports (timing_summary.rpt, utilization.rpt, utilization_hier.rpt, cdc.rpt)"

program: vivado-check
	$(VIVADO) -mode batch -nojournal -nolog -source $(ROOT)/fw/common/program.tcl -tclargs $(BIT)

flash: vivado-check
	$(VIVADO) -mode batch -nojournal -nolog -source $(ROOT)/fw/common/program.tcl \
		-tclargs $(BIT) $(MCS) $(FLASH_PART)

clean:
	rm -rf $(OUT)
